/**
 * Proves the compiled SQL runs on a real PostgreSQL (PGlite in memory) and selects what the
 * original service would: every operator through parseWhere + compileWhere, plus ordering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import type { ClassSchema } from '../../model/class-schema.ts';
import { ident, sql } from '../../sql/fragment.ts';
import { parseWhere } from '../parse-where.ts';
import { translateRegex } from '../regex.ts';
import { compileOrder } from './compile-order.ts';
import { aclClause } from './compile-subquery.ts';
import { compileWhere } from './compile-where.ts';
import { indexSpec } from './field-expr.ts';
import { ALL_ITEMS, D, G, ITEM, openFixture, P, POST } from './compile-where.pg-fixture.ts';

let db: PGlite;
before(async () => {
  db = await openFixture();
});
after(async () => {
  await db.close();
});

const SCHEMAS: Record<string, ClassSchema> = { Item: ITEM, Post: POST };

interface RunOptions {
  readers?: readonly string[] | null;
  schema?: ClassSchema;
  order?: string;
  /** Compare the result order too (otherwise ids are sorted before comparing). */
  ordered?: boolean;
}

async function run(where: unknown, opts: RunOptions = {}): Promise<string[]> {
  const schema = opts.schema ?? ITEM;
  const readers = opts.readers === undefined ? ['*'] : opts.readers;
  const ctx = { schema, schemaOf: (name: string) => SCHEMAS[name], readers };
  const compiled = compileWhere(parseWhere(where), ctx);
  const order = compileOrder(opts.order, schema, compiled.nearOrder);
  const statement = sql`SELECT "objectId" AS id FROM ${ident(schema.name)} WHERE ${compiled.condition} AND ${aclClause(readers)} ORDER BY ${order}`;
  const { text, values } = statement.toQuery();
  const res = await db.query<{ id: string }>(text, values);
  return res.rows.map((r) => r.id);
}

const except = (...ids: string[]) => ALL_ITEMS.filter((id) => !ids.includes(id));

type Case = [name: string, where: unknown, expected: readonly string[], opts?: RunOptions];

const CASES: Case[] = [
  ['empty where', {}, ALL_ITEMS],
  ['string equality', { name: 'apple' }, ['i01']],
  ['string equality is case-sensitive', { name: 'Apple' }, []],
  ['number equality', { score: 10 }, ['i01']],
  ['number field vs string value never matches', { score: '10' }, []],
  ['boolean equality', { flag: true }, ['i01', 'i12']],
  ['$ne matches missing fields', { flag: { $ne: true } }, except('i01', 'i12')],
  ['date equality, iso normalised', { when: D('2020-01-01T00:00:00Z') }, ['i01']],
  ['date $gte', { when: { $gte: D('2020-01-01T00:00:00.000Z') } }, ['i01', 'i02']],
  ['date $lt', { when: { $lt: D('2020-01-01T00:00:00.000Z') } }, ['i11']],
  ['pointer equality', { post: P('p1') }, ['i01', 'i03']],
  ['pointer $ne', { post: { $ne: P('p1') } }, except('i01', 'i03')],
  ['pointer $in', { post: { $in: [P('p1'), P('p2')] } }, ['i01', 'i02', 'i03']],
  ['array contains string', { tags: 'b' }, ['i01', 'i02']],
  ['array contains number', { tags: 1 }, ['i04']],
  ['array contains object: element equality', { tags: { k: 1 } }, ['i04']],
  ['array contains pointer', { tags: P('p2') }, ['i13']],
  ['array equals whole array', { tags: ['a', 'b'] }, ['i01']],
  ['object field: equality, not containment', { meta: { city: 'Paris' } }, ['i03']],
  ['$all', { tags: { $all: ['a', 'b'] } }, ['i01']],
  ['$all one value', { tags: { $all: ['b'] } }, ['i01', 'i02']],
  ['$size 0', { tags: { $size: 0 } }, ['i03']],
  ['$size 2', { tags: { $size: 2 } }, ['i01', 'i02']],
  ['array $in', { tags: { $in: ['a', 'x'] } }, ['i01', 'i04', 'i09']],
  ['array $nin includes missing', { tags: { $nin: ['a', 'x'] } }, except('i01', 'i04', 'i09')],
  ['null matches null or missing', { name: null }, ['i10', 'i19']],
  ['$ne null', { name: { $ne: null } }, except('i10', 'i19')],
  ['$exists true (JSON null counts)', { name: { $exists: true } }, except('i10')],
  ['$exists false', { name: { $exists: false } }, ['i10']],
  ['strings compare byte-wise', { name: { $gt: 'Z' } }, ['i01', 'i03', 'i05', 'i06', 'i08', 'i09', 'i11', 'i12', 'i13', 'i14', 'i15', 'i16', 'i18', 'i20']],
  ['number range', { score: { $gte: 5.5, $lte: 20 } }, ['i01', 'i02', 'i03', 'i11', 'i19']],
  ['number $in', { score: { $in: [10, 0, 1000] } }, ['i01', 'i05', 'i17']],
  ['number $nin', { score: { $nin: [10] } }, except('i01')],
  ['nested key', { 'meta.city': 'Paris' }, ['i01', 'i03']],
  ['nested array contains', { 'meta.tags': 'q' }, ['i14']],
  ['nested comparison', { 'meta.n': { $gt: 1 } }, ['i02']],
  ['nested key with unusual characters', { 'meta.odd-key': 1 }, ['i14']],
  ['nested $in', { 'meta.city': { $in: ['London', 'Berlin'] } }, ['i02', 'i14']],
  ['nested $exists', { 'meta.city': { $exists: true } }, ['i01', 'i02', 'i03', 'i14']],
  ['untyped equality', { misc: 5 }, ['i01']],
  ['untyped $gt is type-guarded', { misc: { $gt: 4 } }, ['i01', 'i12']],
  ['untyped string $lt includes array elements', { misc: { $lt: 'z' } }, ['i02', 'i05', 'i13']],
  ['untyped array contains', { misc: 'two' }, ['i05']],
  ['untyped boolean', { misc: true }, ['i03']],
  ['untyped date comparison', { misc: { $gt: D('2020-06-01T00:00:00.000Z') } }, ['i11']],
  ['untyped object equality', { misc: { k: 1 } }, ['i06']],
  ['untyped null', { misc: null }, ['i04', 'i07', 'i08', 'i09', 'i10', 'i14', 'i15', 'i16', 'i17', 'i18', 'i19']],
  ['untyped $exists', { misc: { $exists: true } }, ['i01', 'i02', 'i03', 'i04', 'i05', 'i06', 'i11', 'i12', 'i13', 'i20']],
  ['untyped $size', { misc: { $size: 3 } }, ['i05']],
  ['untyped $in', { misc: { $in: [3, 'text'] } }, ['i02', 'i05']],
  ['untyped $regex', { misc: { $regex: '^t' } }, ['i02', 'i05']],
  ['regex \\Q..\\E quotes metacharacters', { name: { $regex: '^\\Qa.b*\\E' } }, ['i08']],
  ['regex dot', { name: { $regex: 'a.b' } }, ['i08']],
  ['regex option i', { name: { $regex: '^apple', $options: 'i' } }, ['i01', 'i07']],
  ['regex dot excludes newline by default', { name: { $regex: 'pie.with' } }, []],
  ['regex option s', { name: { $regex: 'pie.with', $options: 's' } }, ['i07']],
  ['regex ^ at string start by default', { name: { $regex: '^with' } }, ['i15']],
  ['regex option m', { name: { $regex: '^with', $options: 'm' } }, ['i07', 'i15']],
  ['regex JS SDK quoting of \\E', { name: { $regex: '\\Qwith \\E\\\\E\\Q inside\\E' } }, ['i15']],
  ['regex option x', { name: { $regex: 'ap ple # comment', $options: 'x' } }, ['i01']],
  ['regex i folds non-ASCII (database ctype)', { name: { $regex: 'É', $options: 'i' } }, ['i06']],
  ['regex \\b word boundary', { name: { $regex: '\\bpie\\b' } }, ['i07']],
  ['regex \\x41', { name: { $regex: '\\x41' } }, ['i07', 'i17']],
  ['regex \\t', { name: { $regex: '\\t' } }, ['i18']],
  ['regex on array of strings', { tags: { $regex: '^[ab]$' } }, ['i01', 'i02', 'i09']],
  ['regex on objectId', { objectId: { $regex: '^i0[12]$' } }, ['i01', 'i02']],
  ['objectId equality', { objectId: 'i05' }, ['i05']],
  ['objectId $in', { objectId: { $in: ['i01', 'i02', 'zz'] } }, ['i01', 'i02']],
  ['objectId $gt', { objectId: { $gt: 'i18' } }, ['i19', 'i20']],
  ['createdAt $gte', { createdAt: { $gte: D('2020-01-18T00:00:00.000Z') } }, ['i18', 'i19', 'i20']],
  ['createdAt equality', { createdAt: D('2020-01-05T00:00:00.000Z') }, ['i05']],
  ['updatedAt $exists', { updatedAt: { $exists: true } }, ALL_ITEMS],
  ['$or', { $or: [{ name: 'apple' }, { score: { $gt: 50 } }] }, ['i01', 'i10', 'i17']],
  ['$and', { $and: [{ score: { $gt: 0 } }, { score: { $lt: 10 } }] }, ['i03', 'i11']],
  ['array where is an implicit $and', [{ score: { $gt: 0 } }, { flag: true }], ['i01']],
  ['$inQuery', { post: { $inQuery: { className: 'Post', where: { title: 'apple' } } } }, ['i01', 'i03']],
  ['$inQuery applies the inner ACL', { post: { $inQuery: { className: 'Post', where: { title: 'Banana' } } } }, []],
  ['$inQuery with a reader allowed', { post: { $inQuery: { className: 'Post', where: { title: 'Banana' } } } }, ['i02'], { readers: ['*', 'u1'] }],
  ['$inQuery with the master key', { post: { $inQuery: { className: 'Post', where: { title: 'Banana' } } } }, ['i02'], { readers: null }],
  ['$notInQuery', { post: { $notInQuery: { className: 'Post', where: { title: 'apple' } } } }, except('i01', 'i03')],
  ['$inQuery on an unknown class matches nothing', { post: { $inQuery: { className: 'Nope', where: {} } } }, []],
  ['$inQuery inner limit', { post: { $inQuery: { className: 'Post', where: {}, limit: 1, order: 'objectId' } } }, ['i01', 'i03'], { readers: null }],
  ['$inQuery inner order, skip, limit', { post: { $inQuery: { className: 'Post', where: {}, order: '-objectId', skip: 1, limit: 1 } } }, ['i02'], { readers: null }],
  ['$inQuery on an array of pointers', { tags: { $inQuery: { className: 'Post', where: {} } } }, ['i13'], { readers: null }],
  ['$inQuery on an array of pointers, ACL', { tags: { $inQuery: { className: 'Post', where: {} } } }, []],
  ['$select', { name: { $select: { query: { className: 'Post', where: {} }, key: 'title' } } }, ['i01']],
  ['$select with the master key', { name: { $select: { query: { className: 'Post', where: {} }, key: 'title' } } }, ['i01', 'i02'], { readers: null }],
  ['$dontSelect', { name: { $dontSelect: { query: { className: 'Post', where: {} }, key: 'title' } } }, except('i01')],
  ['$select on objectId', { objectId: { $select: { query: { className: 'Item', where: { name: 'zeta' } }, key: 'objectId' } } }, ['i11']],
  ['$relatedTo', { $relatedTo: { object: { __type: 'Pointer', className: 'Item', objectId: 'i01' }, key: 'likes' } }, ['p1', 'p3'], { schema: POST }],
  ['relation field equality', { likes: P('p3') }, ['i01']],
  ['relation field $in', { likes: { $in: [P('p3'), P('p2')] } }, ['i01', 'i02']],
  ['relation field $inQuery', { likes: { $inQuery: { className: 'Post', where: { title: 'Banana' } } } }, ['i02'], { readers: null }],
  ['relation field $inQuery, ACL', { likes: { $inQuery: { className: 'Post', where: { title: 'Banana' } } } }, []],
  ['$nearSphere km, ordered by distance', { loc: { $nearSphere: G(48.85, 2.35), $maxDistanceInKilometers: 500 } }, ['i01', 'i02'], { ordered: true }],
  ['$nearSphere miles', { loc: { $nearSphere: G(48.85, 2.35), $maxDistanceInMiles: 10 } }, ['i01']],
  ['$nearSphere radians', { loc: { $nearSphere: G(48.85, 2.35), $maxDistanceInRadians: 0.1 } }, ['i01', 'i02']],
  ['$nearSphere $maxDistance', { loc: { $nearSphere: G(48.85, 2.35), $maxDistance: 0.1 } }, ['i01', 'i02']],
  ['$nearSphere min bound', { loc: { $nearSphere: G(48.85, 2.35), $minDistanceInKilometers: 1000 } }, ['i03', 'i12', 'i20']],
  ['$nearSphere orders all by distance', { loc: { $nearSphere: G(48.85, 2.35) } }, ['i01', 'i02', 'i03', 'i12', 'i20'], { ordered: true }],
  ['$nearSphere with order given', { loc: { $nearSphere: G(48.85, 2.35) } }, ['i20', 'i12', 'i03', 'i02', 'i01'], { order: '-objectId', ordered: true }],
  ['$within $box', { loc: { $within: { $box: [G(40, -80), G(55, 5)] } } }, ['i01', 'i02', 'i03']],
  ['$within $box across the 180th meridian', { loc: { $within: { $box: [G(-40, 150), G(40, -170)] } } }, ['i20']],
];

const ORDERS: Array<[name: string, order: string, expected: readonly string[]]> = [
  ['strings byte-wise, missing and null first', 'name', ['i10', 'i19', 'i17', 'i07', 'i04', 'i02', 'i12', 'i05', 'i08', 'i01', 'i03', 'i20', 'i09', 'i18', 'i15', 'i13', 'i14', 'i11', 'i06', 'i16']],
  // Ties (here the missing scores) follow the last key's direction: objectId descending.
  ['numbers descending, missing last', '-score', ['i17', 'i10', 'i02', 'i19', 'i01', 'i11', 'i03', 'i05', 'i04', 'i20', 'i18', 'i16', 'i15', 'i14', 'i13', 'i12', 'i09', 'i08', 'i07', 'i06']],
  ['untyped field by type bucket', 'misc', ['i04', 'i07', 'i08', 'i09', 'i10', 'i14', 'i15', 'i16', 'i17', 'i18', 'i19', 'i01', 'i12', 'i13', 'i02', 'i06', 'i20', 'i05', 'i03', 'i11']],
  ['createdAt descending', '-createdAt', [...ALL_ITEMS].reverse()],
  ['two keys', 'flag,-score', ['i17', 'i10', 'i19', 'i11', 'i03', 'i05', 'i04', 'i20', 'i18', 'i16', 'i15', 'i14', 'i13', 'i09', 'i08', 'i07', 'i06', 'i02', 'i01', 'i12']],
];

describe('compileWhere on PGlite', () => {
  for (const [name, where, expected, opts] of CASES) {
    test(name, async () => {
      const ids = await run(where, opts);
      const sorted = opts?.ordered ? ids : [...ids].sort();
      assert.deepEqual(sorted, expected);
    });
  }
});

describe('compileOrder on PGlite', () => {
  for (const [name, order, expected] of ORDERS) {
    test(name, async () => {
      assert.deepEqual(await run({}, { order }), expected);
    });
  }
});

describe('indexes built from indexSpec serve compiled conditions', () => {
  const INDEXED: Array<[field: string, where: unknown]> = [
    ['name', { name: 'apple' }],
    ['name', { name: { $in: ['a', 'b'] } }],
    ['name', { name: { $gte: 'a' } }],
    ['score', { score: { $in: [1, 2] } }],
    ['score', { score: { $gt: 5 } }],
    ['flag', { flag: true }],
    ['when', { when: { $gte: D('2020-01-01T00:00:00.000Z') } }],
    ['post', { post: P('p1') }],
    ['post', { post: { $in: [P('p1'), P('p2')] } }],
    ['tags', { tags: 'a' }],
    ['tags', { tags: { $in: ['a', 'b'] } }],
    ['tags', { tags: { $all: ['a', 'b'] } }],
    ['objectId', { objectId: { $in: ['i01', 'i02'] } }],
  ];
  before(async () => {
    for (const field of new Set(INDEXED.map(([f]) => f))) {
      if (field === 'objectId') continue; // the primary key
      const spec = indexSpec(ITEM, field);
      const using = spec.using === 'gin' ? 'USING gin ' : '';
      await db.exec(`CREATE INDEX "item_${field}_idx" ON "Item" ${using}(${spec.expression.toQuery().text})`);
    }
    await db.exec('SET enable_seqscan = off');
  });
  after(async () => {
    await db.exec('SET enable_seqscan = on');
  });
  for (const [field, where] of INDEXED) {
    test(`${field}: ${JSON.stringify(where)}`, async () => {
      const ctx = { schema: ITEM, schemaOf: (name: string) => SCHEMAS[name], readers: null };
      const { text, values } = compileWhere(parseWhere(where), ctx).condition.toQuery();
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT "objectId" FROM "Item" WHERE ${text}`, values);
      const lines = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      const index = field === 'objectId' ? 'Item_pkey' : `item_${field}_idx`;
      assert.match(lines, new RegExp(`Index.*${index}`), lines);
    });
  }
});

describe('invalid patterns that pass pre-validation', () => {
  test('PostgreSQL reports SQLSTATE 2201B (mapped to 102 by the storage layer)', async () => {
    const ctx = { schema: ITEM, schemaOf: (name: string) => SCHEMAS[name], readers: null };
    const { text, values } = compileWhere(parseWhere({ name: { $regex: 'a{2,1}' } }), ctx).condition.toQuery();
    await assert.rejects(db.query(`SELECT 1 FROM "Item" WHERE ${text}`, values), (err: unknown) => {
      assert.equal((err as { code?: unknown }).code, '2201B');
      return true;
    });
  });
});

describe('translated regexes run in PostgreSQL with PCRE meaning', () => {
  const MATCHES: Array<[source: string, options: string, subject: string, expected: boolean]> = [
    ['\\x{4e2d}', '', '中', true],
    ['\\x41BC', '', 'ABC', true],
    ['a\\hb', '', 'a b', true],
    ['a\\vb', '', 'a\nb', true],
    ['(?<year>\\d{4})-(?P<m>\\d\\d)', '', '2020-01', true],
    ['[[:alpha:]]+$', '', 'abc', true],
    ['[^]a]', '', ']', false],
    ['[^]a]', '', 'b', true],
    ['a # (not a group\nb', 'x', 'ab', true],
    ['a\u000bb', 'x', 'a\u000bb', true],
    ['(?:)', '', 'x', true],
    ['(a)\\1', '', 'aa', true],
    ['(?<=d)e', '', 'de', true],
    ['[\\Q]-\\E]', '', '-', true],
    ['[\\Q]-\\E]', '', 'a', false],
    ['\\Aa\\z', '', 'a', true],
    ['a(?# note )b', '', 'ab', true],
    ['[\\b]', '', '\b', true],
    ['\\bword\\b', '', 'a word here', true],
    ['\\bword\\b', '', 'swordfish', false],
    ['a\\B', '', 'ab', true],
    ['a\\B', '', 'a', false],
    ['^a$', 'm', 'x\na', true],
    ['^a$', '', 'x\na', false],
    ['(?i)ABC', '', 'abc', true],
    ['\\Q(?i)\\E', '', '(?i)', true],
    ['\\Qa\\E\\\\E\\Qb\\E', '', 'a\\Eb', true],
  ];
  for (const [source, options, subject, expected] of MATCHES) {
    test(`${JSON.stringify(source)} /${options} on ${JSON.stringify(subject)}`, async () => {
      const res = await db.query<{ m: boolean }>('SELECT $1::text ~ $2 AS m', [subject, translateRegex(source, options)]);
      assert.equal(res.rows[0].m, expected);
    });
  }
});
