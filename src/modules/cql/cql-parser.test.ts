// Golden tests: CQL statement -> class query (where, keys, include, order, limit, skip, count),
// and for a few statements on to the query tree (src/query/ast.ts) that `where` JSON produces.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { thrownCode } from '../../../test/support/thrown-code.ts';
import type { Condition, JsonValue } from '../../query/ast.ts';
import { parseWhere } from '../../query/parse-where.ts';
import { MAX_CQL_BYTES, parseCql, type CqlSelect } from './cql-parser.ts';

const ptr = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
const geo = (longitude: number, latitude: number) => ({ __type: 'GeoPoint', latitude, longitude });
const base = { where: {}, include: [], count: false, results: true };

const GOLDEN: Array<[cql: string, expected: CqlSelect, pvalues?: JsonValue[]]> = [
  ['select * from GameScore', { className: 'GameScore', ...base }],
  ['SELECT name, score FROM GameScore', { className: 'GameScore', ...base, keys: ['name', 'score'] }],
  ["select * from GameScore where name='dennis'", { className: 'GameScore', ...base, where: { name: 'dennis' } }],
  ['select * from GameScore where name is exists and score > 80 and score <= 100', { className: 'GameScore', ...base, where: { name: { $exists: true }, score: { $gt: 80, $lte: 100 } } }],
  ['select * from GameScore where level is not exists', { className: 'GameScore', ...base, where: { level: { $exists: false } } }],
  ['select * from GameScore limit 100,10', { className: 'GameScore', ...base, skip: 100, limit: 10 }],
  ['select * from GameScore order by score,+name desc', { className: 'GameScore', ...base, order: '-score,name' }],
  ['select * from GameScore order by -score,name asc', { className: 'GameScore', ...base, order: '-score,name' }],
  ['select * from GameScore order by score limit 5', { className: 'GameScore', ...base, order: 'score', limit: 5 }],
  ['select * from GameScore limit 5 order by score desc', { className: 'GameScore', ...base, order: '-score', limit: 5 }],
  ["select * from GameScore where name!='dennis'", { className: 'GameScore', ...base, where: { name: { $ne: 'dennis' } } }],
  ["select * from GameScore where name<>'dennis'", { className: 'GameScore', ...base, where: { name: { $ne: 'dennis' } } }],
  ["select * from GameScore where createdAt < date('2011-08-20T02:06:57.931Z')", { className: 'GameScore', ...base, where: { createdAt: { $lt: { __type: 'Date', iso: '2011-08-20T02:06:57.931Z' } } } }],
  ["select * from GameScore where name like 'den.nis%'", { className: 'GameScore', ...base, where: { name: { $regex: '^den\\.nis.*$', $options: 's' } } }],
  ["select * from GameScore where name not like '%x'", { className: 'GameScore', ...base, where: { name: { $not: { $regex: '^.*x$', $options: 's' } } } }],
  ["select * from GameScore where name regexp 'dennis.*'", { className: 'GameScore', ...base, where: { name: { $regex: 'dennis.*' } } }],
  ["select * from GameScore where name not regexp 'dennis.*'", { className: 'GameScore', ...base, where: { name: { $not: { $regex: 'dennis.*' } } } }],
  ['select * from GameScore where scores=100', { className: 'GameScore', ...base, where: { scores: 100 } }],
  ['select * from GameScore where scores all (100,100)', { className: 'GameScore', ...base, where: { scores: { $all: [100, 100] } } }],
  ['select * from GameScore where size(scores) = 2', { className: 'GameScore', ...base, where: { scores: { $size: 2 } } }],
  ["select * from GameScore where name in ('dennis','catty','green')", { className: 'GameScore', ...base, where: { name: { $in: ['dennis', 'catty', 'green'] } } }],
  ["select * from GameScore where name not in ('dennis')", { className: 'GameScore', ...base, where: { name: { $nin: ['dennis'] } } }],
  ['select * from Player where name in (select name from GameScore where score>80)', { className: 'Player', ...base, where: { name: { $select: { query: { className: 'GameScore', where: { score: { $gt: 80 } } }, key: 'name' } } } }],
  ['select * from Player where name =(select name from GameScore where score>80 limit 10)', { className: 'Player', ...base, where: { name: { $select: { query: { className: 'GameScore', where: { score: { $gt: 80 } }, limit: 10 }, key: 'name' } } } }],
  ['select * from Player where name !=(select name from GameScore where score<=80)', { className: 'Player', ...base, where: { name: { $dontSelect: { query: { className: 'GameScore', where: { score: { $lte: 80 } } }, key: 'name' } } } }],
  ['select * from Comment where post in (select * from Post where image is exists)', { className: 'Comment', ...base, where: { post: { $inQuery: { className: 'Post', where: { image: { $exists: true } } } } } }],
  ['select * from Comment where post not in (select * from Post order by -likes)', { className: 'Comment', ...base, where: { post: { $notInQuery: { className: 'Post', where: {}, order: '-likes' } } } }],
  ['select * from Player where location near [116.4, 39.9]', { className: 'Player', ...base, where: { location: { $nearSphere: geo(116.4, 39.9) } } }],
  ['select * from Player where location near geopoint(116.4, 39.9) max 1 km', { className: 'Player', ...base, where: { location: { $nearSphere: geo(116.4, 39.9), $maxDistanceInKilometers: 1 } } }],
  ['select * from Player where location near geopoint(116.4, 39.9) min 0.5 km max 1 miles', { className: 'Player', ...base, where: { location: { $nearSphere: geo(116.4, 39.9), $minDistanceInKilometers: 0.5, $maxDistanceInMiles: 1 } } }],
  ['select * from Player where location near [1, 2] max 0.1', { className: 'Player', ...base, where: { location: { $nearSphere: geo(1, 2), $maxDistanceInRadians: 0.1 } } }],
  ['select * from Player where location within [116.33, 39.97] and [116.37, 39.99]', { className: 'Player', ...base, where: { location: { $within: { $box: [geo(116.33, 39.97), geo(116.37, 39.99)] } } } }],
  ["select * from Player where location near [1, 2] and name = 'x'", { className: 'Player', ...base, where: { location: { $nearSphere: geo(1, 2) }, name: 'x' } }],
  ['select count(*) from GameScore', { className: 'GameScore', ...base, count: true, results: false }],
  ['select count(objectId) from GameScore where score>60 and score<=80', { className: 'GameScore', ...base, where: { score: { $gt: 60, $lte: 80 } }, count: true, results: false }],
  ['select count(*),* from GameScore', { className: 'GameScore', ...base, count: true }],
  ['select count(*),name from GameScore', { className: 'GameScore', ...base, count: true, keys: ['name'] }],
  ["select * from Comment where post=pointer('Post','51e3a359e4b015ead4d95ddc')", { className: 'Comment', ...base, where: { post: ptr('Post', '51e3a359e4b015ead4d95ddc') } }],
  ["select * from Comment where post={className:'Post', objectId:'51e3a334e4b0b3eb44adbe1a',__type:'Pointer'}", { className: 'Comment', ...base, where: { post: ptr('Post', '51e3a334e4b0b3eb44adbe1a') } }],
  ["select * from _User where related likes to pointer('Post', '51e3a359e4b015ead4d95ddc')", { className: '_User', ...base, where: { $relatedTo: { object: ptr('Post', '51e3a359e4b015ead4d95ddc'), key: 'likes' } } }],
  ['select include post, * from Comment', { className: 'Comment', ...base, include: ['post'] }],
  ['select include post,include author from Comment', { className: 'Comment', ...base, include: ['post', 'author'] }],
  ['select include post.category,* from Comment', { className: 'Comment', ...base, include: ['post.category'] }],
  ['select include post, title from Comment', { className: 'Comment', ...base, include: ['post'], keys: ['title', 'post'] }],
  ['select * from GameScore where score>80 and score<=100 or score=0', { className: 'GameScore', ...base, where: { $or: [{ score: { $gt: 80, $lte: 100 } }, { score: 0 }] } }],
  ['select * from GameScore where (score>80 and score<=100) or score=0', { className: 'GameScore', ...base, where: { $or: [{ score: { $gt: 80, $lte: 100 } }, { score: 0 }] } }],
  ['select * from GameScore where score>80 and (score<=100 or score=0)', { className: 'GameScore', ...base, where: { score: { $gt: 80 }, $or: [{ score: { $lte: 100 } }, { score: 0 }] } }],
  ["select * from T where a = 1 and a = 2", { className: 'T', ...base, where: { a: 1, $and: [{ a: 2 }] } }],
  ['select * from GameScore where name=? and score>? limit ?,?', { className: 'GameScore', ...base, where: { name: 'dennis', score: { $gt: 80 } }, skip: 0, limit: 10 }, ['dennis', 80, 0, 10]],
  ['select * from T where d > ?', { className: 'T', ...base, where: { d: { $gt: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } } } }, [{ __type: 'Date', iso: '2020-01-01T00:00:00.000Z' }]],
  ['select * from T where loc near ? max 2 km', { className: 'T', ...base, where: { loc: { $nearSphere: geo(3, 4), $maxDistanceInKilometers: 2 } } }, [geo(3, 4)]],
  ["select * from T where b = base64('aGk=') and f = file('f1') and n = -1.5 and t = true and z = null and o = {\"k\": [1, 'x']}", {
    className: 'T', ...base, where: { b: { __type: 'Bytes', base64: 'aGk=' }, f: { __type: 'File', id: 'f1' }, n: -1.5, t: true, z: null, o: { k: [1, 'x'] } },
  }],
  ['select `order`, `limit` from T where `select` = 1', { className: 'T', ...base, keys: ['order', 'limit'], where: { select: 1 } }],
  ["select * from T where address.city = 'Paris'", { className: 'T', ...base, where: { 'address.city': 'Paris' } }],
  ["select * from T where name = 'it''s' or name = \"say \\\"hi\\\"\"", { className: 'T', ...base, where: { $or: [{ name: "it's" }, { name: 'say "hi"' }] } }],
];

describe('CQL golden: statement -> class query', () => {
  for (const [cql, expected, pvalues] of GOLDEN) {
    test(cql, () => assert.deepEqual(parseCql(cql, pvalues), expected));
  }
});

const TREES: Array<[cql: string, tree: Condition]> = [
  ['select * from T where score > 80 and score <= 100', { kind: 'and', conditions: [
    { kind: 'compare', field: ['score'], op: 'gt', value: { type: 'number', value: 80 } },
    { kind: 'compare', field: ['score'], op: 'lte', value: { type: 'number', value: 100 } },
  ] }],
  ["select * from T where name not like 'a%'", { kind: 'regex', field: ['name'], source: '^a.*$', options: 's', pattern: '(?s)^a.*$', negated: true } as Condition],
  ["select * from T where p = pointer('Post', 'x1') or n in (1, 2)", { kind: 'or', conditions: [
    { kind: 'compare', field: ['p'], op: 'eq', value: { type: 'pointer', className: 'Post', objectId: 'x1' } },
    { kind: 'in', field: ['n'], negated: false, values: [{ type: 'number', value: 1 }, { type: 'number', value: 2 }] },
  ] }],
];

describe('CQL golden: statement -> query tree (the same tree `where` JSON gives)', () => {
  for (const [cql, tree] of TREES) {
    test(cql, () => {
      const got = parseWhere(parseCql(cql).where);
      // The regex pattern is the translator's business; compare the rest of the node.
      if (tree.kind === 'regex' && got.kind === 'regex') assert.deepEqual({ ...got, pattern: '' }, { ...tree, pattern: '' });
      else assert.deepEqual(got, tree);
    });
  }
});

const ERRORS: Array<[cql: string, position: number, pvalues?: JsonValue[]]> = [
  ['', 1],
  ['selec * from T', 1],
  ['select * form T', 10],
  ['select * from', 14],
  ['select * from T where', 22],
  ['select * from T where a', 24],
  ['select * from T where a = ', 27],
  ["select * from T where a = 'open", 27],
  ['select * from T where a = 1 and', 32],
  ['select * from T where (a = 1', 29],
  ['select * from T limit 1 limit 2', 25],
  ['select * from T order by', 25],
  ['select * from T where a = ?', 27],
  ['select * from T where a = 1', 28, [5]],
  ['select * from T limit ?', 23, ['x']],
  ['select * from T limit -1', 23],
  ['select * from T where size(a) > 1', 31],
  ['select * from T where a not exists', 29],
  ['select * from T where a = #', 27],
  ["delete from T where objectId = 'x'", 1],
  ["select * from T where a = {'$gt': 1}", 27],
  ['select * from T where a count 1', 25],
];

describe('CQL syntax errors: code 300 with the 1-based position', () => {
  for (const [cql, position, pvalues] of ERRORS) {
    test(JSON.stringify(cql), () => {
      assert.equal(thrownCode(() => parseCql(cql, pvalues)), 300);
      assert.throws(() => parseCql(cql, pvalues), (e: Error) => e.message.includes(`at position ${position}:`) || assert.fail(e.message));
    });
  }

  test(`statements over ${MAX_CQL_BYTES} bytes are refused (bytes, not characters)`, () => {
    const filler = (n: number) => `select * from T where a = '${'x'.repeat(n)}'`;
    const fits = filler(MAX_CQL_BYTES - filler(0).length);
    assert.equal(Buffer.byteLength(fits), MAX_CQL_BYTES);
    assert.doesNotThrow(() => parseCql(fits));
    assert.equal(thrownCode(() => parseCql(filler(MAX_CQL_BYTES - filler(0).length + 1))), 300);
    const wide = `select * from T where a = '${'é'.repeat(2100)}'`;
    assert.ok(wide.length < MAX_CQL_BYTES && Buffer.byteLength(wide) > MAX_CQL_BYTES);
    assert.equal(thrownCode(() => parseCql(wide)), 300);
  });

  test('deep nesting is an error, not a stack overflow', () => {
    assert.equal(thrownCode(() => parseCql(`select * from T where ${'('.repeat(1000)}a=1${')'.repeat(1000)}`)), 300);
    assert.equal(thrownCode(() => parseCql(`select * from T where a = ${'['.repeat(1000)}${']'.repeat(1000)}`)), 300);
  });
});
