import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { forEachEngine, TEST_KEYS, type Harness } from './harness/engines.ts';
import type { TestRequest, TestResponse } from './harness/client.ts';

// The injection and bad-input suite (design.md "Tests", security-checklist.md). Every hostile
// request must get a 4xx with a {code, error} body (the catalogue's code where it has one) and
// must change nothing: no object, no class, no field, no table, no relation row.

const CODE = {
  invalidJson: 107,
  invalidQuery: 102,
  invalidClassName: 103,
  missingObjectId: 104,
  invalidKeyName: 105,
  invalidPointer: 106,
  incorrectType: 111,
  invalidNestedKey: 121,
  invalidAcl: 123,
  invalidGeoPoint: 302,
} as const;

/** A hostile request and what it must get. `codes` lists acceptable body codes (any 4xx when absent). */
interface Case {
  what: string;
  req: (ids: Fixture) => TestRequest;
  codes?: readonly number[];
  status?: number;
}

/** Objects created before the cases run. */
interface Fixture {
  id: string;
  longId: string;
}

const ID = '0123456789abcdef01234567';

function body(method: 'POST' | 'PUT', url: string, payload: string): TestRequest {
  return { method, url, payload, headers: { 'content-type': 'application/json' } };
}

function create(payload: string, className = 'Target'): TestRequest {
  return body('POST', `/1.1/classes/${className}`, payload);
}

function update(payload: string): (f: Fixture) => TestRequest {
  return (f) => body('PUT', `/1.1/classes/Target/${f.id}`, payload);
}

/** A class query; `where` given as raw JSON text so that hostile keys survive as written. */
function find(query: Record<string, string>): TestRequest {
  return { method: 'GET', url: '/1.1/classes/Target', query };
}

function where(json: string): TestRequest {
  return find({ where: json });
}

const j = JSON.stringify;

// ---------------------------------------------------------------------------------------------
// Hostile class names, on every object route.

const HOSTILE_CLASS_NAMES = [
  'a;drop table x',
  'Target;DROP TABLE "Target"',
  '"quoted"',
  "a'b",
  '_larder_meta',
  '_larder_classes',
  '_larder_relations',
  '_larder_migrations',
  'pg_user',
  'pg_class',
  'pg_authid',
  '../x',
  '..',
  'a\u0000b',
  'A'.repeat(10 * 1024),
  'A'.repeat(61),
  'Ünïcødé',
  '表',
  'a b',
  'a-b',
  '1abc',
  '_',
  '_Unknown',
  '__proto__',
  '_User;',
  ' Target',
];

function classNameCases(): Case[] {
  const out: Case[] = [];
  for (const name of HOSTILE_CLASS_NAMES) {
    const enc = encodeURIComponent(name);
    const label = j(name.length > 40 ? `${name.slice(0, 20)}...(${name.length})` : name);
    // "..": URL parsing resolves the dot segment before routing (as every HTTP client does), so
    // the request lands on an unknown route (404) and never reaches a class.
    const codes = name === '..' ? [CODE.invalidClassName, 404] : [CODE.invalidClassName];
    const status = name === '..' ? undefined : 400;
    out.push({ what: `class ${label}: create`, req: () => create('{"a":1}', enc), codes, status });
    out.push({ what: `class ${label}: find`, req: () => ({ method: 'GET', url: `/1.1/classes/${enc}` }), codes, status });
    out.push({ what: `class ${label}: get`, req: () => ({ method: 'GET', url: `/1.1/classes/${enc}/${ID}` }), codes, status });
    out.push({ what: `class ${label}: update`, req: () => body('PUT', `/1.1/classes/${enc}/${ID}`, '{"a":1}'), codes, status });
    out.push({ what: `class ${label}: delete`, req: () => ({ method: 'DELETE', url: `/1.1/classes/${enc}/${ID}` }), codes, status });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hostile keys in write bodies.

const BAD_TOP_KEYS = [
  "a'b",
  'a"b',
  '$where',
  '$set',
  '__proto__',
  'a b',
  'a;drop table x',
  'a\u0000b',
  'ünï',
  '_private',
  '__op',
  '__type',
  '1abc',
  '',
  'k'.repeat(129),
  'k'.repeat(10_000),
  'data',
].filter((k) => k !== 'data'); // "data" is a fine field name; kept out on purpose (the jsonb column is not reachable by name)

function writeKeyCases(): Case[] {
  const out: Case[] = [];
  for (const key of BAD_TOP_KEYS) {
    const label = j(key.length > 40 ? `${key.slice(0, 10)}...(${key.length})` : key);
    const payload = `{${j(key)}:1}`;
    out.push({ what: `create key ${label}`, req: () => create(payload), codes: [CODE.invalidKeyName] });
    out.push({ what: `update key ${label}`, req: update(payload), codes: [CODE.invalidKeyName] });
  }
  out.push({ what: 'create dotted key a.b', req: () => create('{"obj.k":1}'), codes: [CODE.invalidKeyName] });
  for (const key of ['obj.$x', 'obj..k', 'obj.', '.obj', 'obj.__proto__.x', `obj${'.k'.repeat(100)}`, `obj.${'k'.repeat(10_000)}`]) {
    out.push({ what: `update dotted key ${j(key.slice(0, 40))}`, req: update(`{${j(key)}:1}`), codes: [CODE.invalidKeyName] });
  }
  out.push({ what: 'update dotted key with NUL', req: update('{"obj.a\\u0000b":1}'), codes: [CODE.invalidKeyName, CODE.invalidJson], status: 400 });
  const nested: [string, string][] = [
    ['$ in a nested key', '{"obj":{"$gt":1}}'],
    ['. in a nested key', '{"obj":{"a.b":1}}'],
    ['$ two levels down', '{"obj":{"x":{"$where":"1"}}}'],
    ['$ inside an array element', '{"arr":[{"$x":1}]}'],
    ['nested __proto__', '{"obj":{"__proto__":{"isAdmin":true}}}'],
  ];
  for (const [what, payload] of nested) {
    out.push({ what: `create: ${what}`, req: () => create(payload), codes: [CODE.invalidNestedKey] });
    out.push({ what: `update: ${what}`, req: update(payload), codes: [CODE.invalidNestedKey] });
  }
  out.push({ what: 'ACL with a __proto__ entry', req: () => create('{"a":1,"ACL":{"__proto__":{"read":true}}}'), codes: [CODE.invalidAcl] });
  out.push({ what: 'ACL with a hostile key', req: () => create('{"a":1,"ACL":{"\' OR 1=1 --":{"read":true}}}'), codes: [CODE.invalidAcl] });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hostile keys in where / order / keys / include.

function queryKeyCases(): Case[] {
  const out: Case[] = [];
  const whereKeys: [string, number[]][] = [
    ["a'b", [CODE.invalidKeyName]],
    ['a"b', [CODE.invalidKeyName]],
    ['a;drop table x', [CODE.invalidKeyName]],
    ['$where', [CODE.invalidQuery]],
    ['__proto__', [CODE.invalidKeyName]],
    ['obj.__proto__', [CODE.invalidKeyName]],
    ['obj.$x', [CODE.invalidKeyName]],
    ['obj..x', [CODE.invalidKeyName]],
    ['k'.repeat(10_000), [CODE.invalidKeyName]],
    ['a\u0000b', [CODE.invalidKeyName, CODE.invalidQuery]],
    ['', [CODE.invalidKeyName]],
  ];
  for (const [key, codes] of whereKeys) {
    const label = j(key.length > 40 ? `${key.slice(0, 10)}...(${key.length})` : key);
    out.push({ what: `where key ${label}`, req: () => where(`{${j(key)}:1}`), codes });
    out.push({ what: `where key ${label} inside $or`, req: () => where(`{"$or":[{${j(key)}:1}]}`), codes });
  }
  out.push({ what: 'where {"__proto__":{"isAdmin":true}}', req: () => where('{"__proto__":{"isAdmin":true}}'), codes: [CODE.invalidKeyName] });
  const orderKeys = ["a'b", '$where', '__proto__', 'a;drop table x', 'n desc', 'n)--', 'obj.__proto__', 'k'.repeat(10_000), 'a\u0000b'];
  for (const order of orderKeys) {
    out.push({ what: `order ${j(order.slice(0, 40))}`, req: () => find({ order }), codes: [CODE.invalidKeyName, CODE.invalidQuery] });
  }
  const keyParams = ["a'b", '__proto__', 'a;drop table x', '$where', 'obj.__proto__', '-__proto__', 'k'.repeat(10_000), 'a\u0000b'];
  for (const keys of keyParams) {
    out.push({ what: `keys ${j(keys.slice(0, 40))} on find`, req: () => find({ keys }), codes: [CODE.invalidKeyName] });
    out.push({ what: `keys ${j(keys.slice(0, 40))} on get`, req: (f) => ({ method: 'GET', url: `/1.1/classes/Target/${f.id}`, query: { keys } }), codes: [CODE.invalidKeyName] });
  }
  const includes = ["a'b", '__proto__', 'a.__proto__', '$where', 'a;drop table x', `${'p.'.repeat(100)}p`, 'k'.repeat(10_000)];
  for (const include of includes) {
    out.push({ what: `include ${j(include.slice(0, 40))} on find`, req: () => find({ include }), codes: [CODE.invalidKeyName, CODE.invalidQuery] });
    out.push({ what: `include ${j(include.slice(0, 40))} on get`, req: (f) => ({ method: 'GET', url: `/1.1/classes/Target/${f.id}`, query: { include } }), codes: [CODE.invalidKeyName, CODE.invalidQuery] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hostile values, regexes, deep and huge JSON, wrong types, unknown operators.

function deepArrays(n: number): string {
  return '['.repeat(n) + ']'.repeat(n);
}

function deepObjects(n: number): string {
  return '{"x":'.repeat(n) + '1' + '}'.repeat(n);
}

function valueCases(): Case[] {
  const out: Case[] = [];
  // NUL and lone surrogates: PostgreSQL jsonb/text cannot hold them; must be a clear 400.
  const nul: [string, string][] = [
    ['string value', '{"s":"a\\u0000b"}'],
    ['nested value', '{"obj":{"k":"a\\u0000"}}'],
    ['array element', '{"arr":["ok","\\u0000"]}'],
    ['nested key', '{"obj":{"a\\u0000b":1}}'],
    ['lone surrogate', '{"s":"\\ud800"}'],
    ['Pointer objectId', '{"p":{"__type":"Pointer","className":"Target","objectId":"a\\u0000"}}'],
    ['Add element', '{"arr":{"__op":"Add","objects":["\\u0000"]}}'],
  ];
  for (const [what, payload] of nul) {
    out.push({ what: `NUL/surrogate in create: ${what}`, req: () => create(payload), status: 400 });
    out.push({ what: `NUL/surrogate in update: ${what}`, req: update(payload), status: 400 });
  }
  out.push({ what: 'NUL in a where value', req: () => where('{"s":"a\\u0000b"}'), status: 400 });
  out.push({ what: 'NUL in a $in list', req: () => where('{"s":{"$in":["x","\\u0000"]}}'), status: 400 });
  out.push({ what: 'NUL in a $regex', req: () => where('{"s":{"$regex":"a\\u0000"}}'), status: 400 });
  out.push({ what: 'NUL in a nested where value', req: () => where('{"obj":{"k":"\\u0000"}}'), status: 400 });
  out.push({ what: 'NUL in a pointer where value', req: () => where('{"p":{"__type":"Pointer","className":"Target","objectId":"\\u0000"}}'), status: 400 });
  out.push({ what: 'NUL in an objectId (get)', req: () => ({ method: 'GET', url: '/1.1/classes/Target/a%00b' }), codes: [CODE.missingObjectId] });
  out.push({ what: 'NUL in an objectId (update)', req: () => body('PUT', '/1.1/classes/Target/a%00b', '{"n":1}'), codes: [CODE.missingObjectId] });
  out.push({ what: 'SQL in an objectId (get)', req: () => ({ method: 'GET', url: `/1.1/classes/Target/${encodeURIComponent("x' OR '1'='1")}` }), codes: [CODE.missingObjectId] });
  out.push({ what: 'SQL in an objectId (delete list)', req: (f) => ({ method: 'DELETE', url: `/1.1/classes/Target/${f.id},${encodeURIComponent("x' OR '1'='1")}` }), codes: [CODE.missingObjectId] });

  // Regular expressions.
  for (const pattern of ['(', '[a-', 'a{2,1}', '*a', '\\', '[z-a]', 'a)']) {
    out.push({ what: `invalid regex ${j(pattern)}`, req: () => where(j({ s: { $regex: pattern } })), codes: [CODE.invalidQuery], status: 400 });
  }
  out.push({ what: 'regex longer than the limit', req: () => where(j({ s: { $regex: 'a'.repeat(1001) } })), codes: [CODE.invalidQuery] });
  out.push({ what: 'regex of 100k characters', req: () => where(j({ s: { $regex: '(a)'.repeat(33_000) } })), codes: [CODE.invalidQuery] });
  for (const options of ['z', 'g', 'ig', '\u0000']) {
    out.push({ what: `bad $options ${j(options)}`, req: () => where(j({ s: { $regex: 'a', $options: options } })), codes: [CODE.invalidQuery] });
  }
  out.push({ what: '$options as a number', req: () => where('{"s":{"$regex":"a","$options":5}}'), codes: [CODE.invalidQuery] });
  out.push({ what: '$options as an array', req: () => where('{"s":{"$regex":"a","$options":["i"]}}'), codes: [CODE.invalidQuery] });
  out.push({ what: '$options without $regex', req: () => where('{"s":{"$options":"i"}}'), codes: [CODE.invalidQuery] });

  // Deep JSON.
  out.push({ what: 'body: 10,000 nested arrays', req: () => create(`{"a":${deepArrays(10_000)}}`), codes: [CODE.invalidJson], status: 400 });
  out.push({ what: 'body: 10,000 nested objects', req: () => create(`{"a":${deepObjects(10_000)}}`), codes: [CODE.invalidJson], status: 400 });
  out.push({ what: 'body: 100,000 nested arrays on update', req: update(`{"a":${deepArrays(100_000)}}`), codes: [CODE.invalidJson], status: 400 });
  out.push({ what: 'body: 40 nested arrays (below the parser limit, above the value limit)', req: () => create(`{"a":${deepArrays(40)}}`), codes: [CODE.invalidJson, CODE.incorrectType], status: 400 });
  out.push({ what: 'where: 10,000 nested arrays', req: () => where(deepArrays(10_000)), codes: [CODE.invalidQuery, CODE.invalidJson], status: 400 });
  out.push({ what: 'where: 10,000 nested $or', req: () => where('{"$or":['.repeat(10_000) + '{}' + ']}'.repeat(10_000)), codes: [CODE.invalidQuery, CODE.invalidJson], status: 400 });
  out.push({ what: 'where: 50 nested $and', req: () => where('{"$and":['.repeat(50) + '{"n":1}' + ']}'.repeat(50)), codes: [CODE.invalidQuery, CODE.invalidJson], status: 400 });
  out.push({ what: 'where: value with 10,000 nested arrays', req: () => where(`{"arr":${deepArrays(10_000)}}`), codes: [CODE.invalidQuery, CODE.invalidJson], status: 400 });
  out.push({ what: 'where: $in of deep arrays', req: () => where(`{"arr":{"$in":[${deepArrays(5_000)}]}}`), codes: [CODE.invalidQuery, CODE.invalidJson], status: 400 });

  // Huge lists.
  const many = (n: number) => Array.from({ length: n }, (_, i) => i);
  out.push({ what: '$in with 20,001 elements', req: () => where(j({ n: { $in: many(20_001) } })), codes: [CODE.invalidQuery] });
  out.push({ what: '$nin with 20,001 elements', req: () => where(j({ n: { $nin: many(20_001) } })), codes: [CODE.invalidQuery] });
  out.push({ what: '$all with 20,001 elements', req: () => where(j({ arr: { $all: many(20_001) } })), codes: [CODE.invalidQuery] });
  out.push({ what: '$or with 1,000 members', req: () => where(j({ $or: many(1000).map((n) => ({ n })) })), codes: [CODE.invalidQuery] });

  // Huge numbers and NaN-like values.
  out.push({ what: 'body: 1e400 (Infinity)', req: () => create('{"n":1e400}'), codes: [CODE.incorrectType], status: 400 });
  out.push({ what: 'body: -1e400', req: () => create('{"n":-1e400}'), codes: [CODE.incorrectType], status: 400 });
  out.push({ what: 'body: NaN literal', req: () => create('{"n":NaN}'), codes: [CODE.invalidJson], status: 400 });
  out.push({ what: 'body: Infinity literal', req: () => create('{"n":Infinity}'), codes: [CODE.invalidJson], status: 400 });
  out.push({ what: 'body: Increment by 1e400', req: update('{"n":{"__op":"Increment","amount":1e400}}'), codes: [CODE.incorrectType], status: 400 });
  out.push({ what: 'body: Increment by a string', req: update('{"n":{"__op":"Increment","amount":"1"}}'), codes: [CODE.incorrectType], status: 400 });
  out.push({ what: 'body: Increment beyond the double range', req: (f) => body('PUT', `/1.1/classes/Target/${f.longId}`, '{"big":{"__op":"Increment","amount":1.7e308}}'), status: 400 });
  out.push({ what: 'where: $gt 1e400', req: () => where('{"n":{"$gt":1e400}}'), codes: [CODE.invalidQuery], status: 400 });
  out.push({ what: 'where: equals -1e400', req: () => where('{"n":-1e400}'), codes: [CODE.invalidQuery], status: 400 });
  out.push({ what: 'skip 1e400', req: () => find({ skip: '1e400' }), codes: [CODE.invalidQuery] });
  out.push({ what: 'skip 99999999999999999999', req: () => find({ skip: '99999999999999999999' }), codes: [CODE.invalidQuery] });

  // Wrong types for operators and parameters.
  const wrongTypes: [string, string][] = [
    ['$in: 5', '{"n":{"$in":5}}'],
    ['$in: "a"', '{"n":{"$in":"a"}}'],
    ['$in: {}', '{"n":{"$in":{}}}'],
    ['$nin: 5', '{"n":{"$nin":5}}'],
    ['$all: "x"', '{"arr":{"$all":"x"}}'],
    ['$exists: "yes"', '{"n":{"$exists":"yes"}}'],
    ['$size: -1', '{"arr":{"$size":-1}}'],
    ['$size: "2"', '{"arr":{"$size":"2"}}'],
    ['$size: 1.5', '{"arr":{"$size":1.5}}'],
    ['$regex: 5', '{"s":{"$regex":5}}'],
    ['$regex: {}', '{"s":{"$regex":{}}}'],
    ['$regex: null', '{"s":{"$regex":null}}'],
    ['$or: {}', '{"$or":{}}'],
    ['$or: []', '{"$or":[]}'],
    ['$or: [5]', '{"$or":[5]}'],
    ['$and: 5', '{"$and":5}'],
    ['$inQuery: 5', '{"p":{"$inQuery":5}}'],
    ['$inQuery className 5', '{"p":{"$inQuery":{"className":5,"where":{}}}}'],
    ['$inQuery where "x"', '{"p":{"$inQuery":{"className":"Target","where":"x"}}}'],
    ['$select: "x"', '{"n":{"$select":"x"}}'],
    ['$relatedTo: 5', '{"$relatedTo":5}'],
  ];
  for (const [what, w] of wrongTypes) out.push({ what: `wrong type ${what}`, req: () => where(w), codes: [CODE.invalidQuery, CODE.invalidPointer, CODE.invalidClassName], status: 400 });
  out.push({ what: 'wrong type $near: "x"', req: () => where('{"loc":{"$nearSphere":"x"}}'), codes: [CODE.invalidQuery, CODE.invalidGeoPoint], status: 400 });
  out.push({ what: 'wrong type $within: 5', req: () => where('{"loc":{"$within":5}}'), codes: [CODE.invalidQuery, CODE.invalidGeoPoint], status: 400 });
  out.push({ what: 'GeoPoint out of range', req: () => where('{"loc":{"$nearSphere":{"__type":"GeoPoint","latitude":91,"longitude":0}}}'), codes: [CODE.invalidGeoPoint], status: 400 });
  out.push({ what: 'skip -5', req: () => find({ skip: '-5' }), codes: [CODE.invalidQuery] });
  out.push({ what: 'skip "abc"', req: () => find({ skip: 'abc' }), codes: [CODE.invalidQuery] });

  // Unknown operators.
  const unknown: [string, string][] = [
    ['$foo under a field', '{"n":{"$foo":1}}'],
    ['$where under a field', '{"n":{"$where":"1"}}'],
    ['$where at the top', '{"$where":"sleep(10)"}'],
    ['$text at the top', '{"$text":{"$search":"x"}}'],
    ['$expr at the top', '{"$expr":{"$gt":["$n",1]}}'],
    ['a known and an unknown operator', '{"n":{"$gt":1,"$bogus":2}}'],
    ['$regex with an unknown sibling', '{"s":{"$regex":"a","$bogus":1}}'],
    ['$elemMatch (not LeanCloud)', '{"arr":{"$elemMatch":{"x":1}}}'],
  ];
  for (const [what, w] of unknown) out.push({ what: `unknown operator: ${what}`, req: () => where(w), codes: [CODE.invalidQuery], status: 400 });

  // A where that is not JSON, or not an object.
  for (const w of ['{a:1}', 'abc', '{"a":', '[', "{'n':1}"]) {
    out.push({ what: `where not JSON ${j(w)}`, req: () => where(w), codes: [CODE.invalidJson], status: 400 });
  }
  for (const w of ['5', '"str"', 'true']) {
    out.push({ what: `where not an object ${w}`, req: () => where(w), codes: [CODE.invalidQuery], status: 400 });
  }
  for (const w of ['{a:1}', '{"n":{"$in":5}}']) {
    out.push({ what: `conditional update with bad where ${j(w)}`, req: (f) => ({ ...update('{"n":100}')(f), query: { where: w } }), codes: [CODE.invalidJson, CODE.invalidQuery], status: 400 });
    out.push({ what: `conditional delete with bad where ${j(w)}`, req: (f) => ({ method: 'DELETE', url: `/1.1/classes/Target/${f.id}`, query: { where: w } }), codes: [CODE.invalidJson, CODE.invalidQuery], status: 400 });
  }

  // Bodies that are not JSON objects.
  for (const payload of ['[1,2]', '[{"a":1}]', '"str"', '5', 'null', 'true', '[]']) {
    out.push({ what: `create body ${payload}`, req: () => create(payload), codes: [CODE.invalidJson], status: 400 });
    out.push({ what: `update body ${payload}`, req: update(payload), codes: [CODE.invalidJson], status: 400 });
  }

  // Prototype pollution through bodies.
  for (const payload of ['{"__proto__":{"isAdmin":true}}', '{"a":1,"__proto__":{"isAdmin":true}}']) {
    out.push({ what: `prototype pollution on create ${payload}`, req: () => create(payload), codes: [CODE.invalidKeyName], status: 400 });
    out.push({ what: `prototype pollution on update ${payload}`, req: update(payload), codes: [CODE.invalidKeyName], status: 400 });
  }
  out.push({
    what: 'prototype pollution through the text/plain fallback',
    req: () => ({
      method: 'POST',
      url: '/1.1/classes/Target',
      auth: false,
      payload: `{"_ApplicationId":${j(TEST_KEYS.appId)},"_ApplicationKey":${j(TEST_KEYS.appKey)},"__proto__":{"isAdmin":true}}`,
      headers: { 'content-type': 'text/plain' },
    }),
    codes: [CODE.invalidKeyName],
    status: 400,
  });
  return out;
}

// ---------------------------------------------------------------------------------------------

interface Snapshot {
  catalogue: unknown;
  tables: string[];
  relations: number;
  target: unknown;
  count: number;
}

forEachEngine('hostile input: injection and bad-input suite', (h: () => Harness) => {
  const fixture: Fixture = { id: '', longId: '' };

  before(async () => {
    const a = await h().client.post('/1.1/classes/Target', {
      s: 'plain',
      n: 1,
      arr: [1, 2],
      obj: { k: 'v' },
      p: { __type: 'Pointer', className: 'Target', objectId: ID },
      loc: { __type: 'GeoPoint', latitude: 1, longitude: 2 },
    });
    assert.equal(a.status, 201, a.text);
    fixture.id = a.body.objectId;
    const b = await h().client.post('/1.1/classes/Target', { s: 'a'.repeat(30_000) + '!', n: 2, big: 1.7e308 });
    assert.equal(b.status, 201, b.text);
    fixture.longId = b.body.objectId;
  });

  async function snapshot(): Promise<Snapshot> {
    const { db } = h();
    const catalogue = await db.query(sql`SELECT name, fields FROM _larder_classes ORDER BY name`);
    const tables = (await db.query<{ t: string }>(sql`SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`)).map((r) => r.t);
    const [{ n: relations }] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_relations`);
    const target = await db.query(sql`SELECT "objectId", "updatedAt", acl, data FROM "Target" ORDER BY "objectId"`);
    const res = await h().client.get('/1.1/classes/Target', { count: 1, limit: 0 }, { master: true });
    assert.equal(res.status, 200, `master count: ${res.text}`);
    return { catalogue, tables, relations, target, count: res.body.count };
  }

  function assertRejected(c: Case, res: TestResponse): void {
    const shown = `${c.what}: got ${res.status} ${res.text.slice(0, 300)}`;
    assert.ok(res.status >= 400 && res.status < 500, shown);
    if (c.status !== undefined) assert.equal(res.status, c.status, shown);
    assert.equal(typeof res.body, 'object', shown);
    assert.equal(typeof res.body.code, 'number', shown);
    assert.equal(typeof res.body.error, 'string', shown);
    assert.ok(res.body.error.length > 0 && res.body.error.length <= 1000, `${c.what}: error text length ${res.body.error.length}`);
    if (c.codes) assert.ok(c.codes.includes(res.body.code), `${c.what}: code ${res.body.code}, expected one of ${c.codes.join('/')}; ${res.text.slice(0, 300)}`);
  }

  for (const c of [...classNameCases(), ...writeKeyCases(), ...queryKeyCases(), ...valueCases()]) {
    test(c.what, async () => {
      const before = await snapshot();
      const res = await h().client.request(c.req(fixture));
      assertRejected(c, res);
      assert.deepEqual(await snapshot(), before, `${c.what}: something was written`);
      assert.equal(({} as Record<string, unknown>).isAdmin, undefined, 'Object.prototype polluted');
    });
  }

  test('catastrophic-backtracking regexes answer (results or a clear error), never time out', async () => {
    for (const pattern of ['(a+)+$', '(a|aa)+$', '(a*)*b', '^(a|a?)+$', '(.*a){12}', '(\\w+\\s?)+$']) {
      const res = await h().client.get('/1.1/classes/Target', { where: { s: { $regex: pattern } } });
      assert.ok(res.status === 200 || (res.status === 400 && res.body.code === CODE.invalidQuery), `${pattern}: ${res.status} ${res.text.slice(0, 200)}`);
      if (res.status === 200) assert.ok(Array.isArray(res.body.results), pattern);
    }
  });

  test('internal tables are not reachable as classes, however they are named', async () => {
    for (const name of ['_larder_meta', '_larder_relations', '_larder_migrations', '_larder_classes']) {
      const found = await h().client.get(`/1.1/classes/${name}`, undefined, { master: true });
      assert.deepEqual([found.status, found.body.code], [400, CODE.invalidClassName], `${name} find with master`);
      const one = await h().client.get(`/1.1/classes/${name}/app`, undefined, { master: true });
      assert.deepEqual([one.status, one.body.code], [400, CODE.invalidClassName], `${name} get with master`);
    }
  });

  test('internal tables cannot be read through pointers, $inQuery, $select or relations', async () => {
    const leakMarkers = [TEST_KEYS.masterKey, TEST_KEYS.appKey, 'serverSecret'];
    const noLeak = (res: TestResponse, what: string) => {
      assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
      for (const m of leakMarkers) assert.ok(!res.text.includes(m), `${what} leaked ${m}`);
    };
    for (const cls of ['_larder_meta', '_larder_classes', '_larder_migrations', 'pg_user', 'pg_authid']) {
      const ptr = await h().client.post('/1.1/classes/Pointing', { p: { __type: 'Pointer', className: cls, objectId: 'app' } }, { master: true });
      if (ptr.status === 201) {
        noLeak(await h().client.get(`/1.1/classes/Pointing/${ptr.body.objectId}`, { include: 'p' }, { master: true }), `include pointer to ${cls}`);
        noLeak(await h().client.get('/1.1/classes/Pointing', { include: 'p' }, { master: true }), `find include pointer to ${cls}`);
      } else {
        assert.ok(ptr.status >= 400 && ptr.status < 500, `pointer to ${cls}: ${ptr.status}`);
      }
      noLeak(await h().client.get('/1.1/classes/Target', { where: { p: { $inQuery: { className: cls, where: {} } } } }, { master: true }), `$inQuery ${cls}`);
      noLeak(await h().client.get('/1.1/classes/Target', { where: { s: { $select: { query: { className: cls, where: {} }, key: 'key' } } } }, { master: true }), `$select ${cls}`);
      const rel = await h().client.post('/1.1/classes/Relating', { r: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: cls, objectId: 'app' }] } }, { master: true });
      if (rel.status === 201) {
        noLeak(await h().client.get('/1.1/classes/Relating', { redirectClassNameForKey: 'r' }, { master: true }), `redirect ${cls}`);
        noLeak(await h().client.get(`/1.1/classes/${encodeURIComponent(cls)}`, { where: { $relatedTo: { object: { __type: 'Pointer', className: 'Relating', objectId: rel.body.objectId }, key: 'r' } } }, { master: true }), `$relatedTo ${cls}`);
      }
    }
  });

  test('SQL comments, quotes and backslashes in values come back byte-identical and match exactly', async () => {
    const nasty = [
      "'; DROP TABLE \"Target\"; --",
      "' OR '1'='1",
      '" OR ""="',
      '/* comment */ SELECT 1; -- trailing',
      'back\\slash \\\\ double \\x00 \\u0000 \\n',
      '$1 $$ $tag$ %s %% ?',
      '`backtick` \u2028 \u2029 \t\r\n',
      'emoji 🙂 and 表 and \u00e9',
      '{"__type":"Date","iso":"x"}',
      "E'\\x41'",
      ']]>]]><![CDATA[',
      '',
    ];
    const fields: Record<string, string> = {};
    nasty.forEach((s, i) => (fields[`s${i}`] = s));
    // Keys of nested objects may hold any character but '$' and '.' (LeanCloud allows them), so
    // SQL in a nested key is data too: stored, returned and queried verbatim.
    const hostileKey = "a'b\") OR 1=1 -- /*";
    const created = await h().client.post('/1.1/classes/RoundTrip', { ...fields, nested: { list: nasty, [hostileKey]: 'k' } });
    assert.equal(created.status, 201, created.text);
    const got = await h().client.get(`/1.1/classes/RoundTrip/${created.body.objectId}`);
    for (const [k, v] of Object.entries(fields)) assert.equal(got.body[k], v, k);
    assert.deepEqual(got.body.nested, { list: nasty, [hostileKey]: 'k' });
    const byKey = await h().client.get('/1.1/classes/RoundTrip', { where: { [`nested.${hostileKey}`]: 'k' } });
    assert.equal(byKey.status, 200, byKey.text);
    assert.deepEqual(byKey.body.results.map((o: { objectId: string }) => o.objectId), [created.body.objectId]);
    const byKeyMiss = await h().client.get('/1.1/classes/RoundTrip', { where: { [`nested.${hostileKey}`]: 'other' } });
    assert.deepEqual(byKeyMiss.body.results, []);
    const orderByKey = await h().client.get('/1.1/classes/RoundTrip', { order: `-nested.${hostileKey}` });
    assert.ok(orderByKey.status === 200 || (orderByKey.status === 400 && [102, 105].includes(orderByKey.body.code)), orderByKey.text);
    for (const [k, v] of Object.entries(fields)) {
      const hit = await h().client.get('/1.1/classes/RoundTrip', { where: { [k]: v } });
      assert.equal(hit.status, 200, `${k}: ${hit.text}`);
      assert.deepEqual(hit.body.results.map((o: { objectId: string }) => o.objectId), [created.body.objectId], k);
      const inList = await h().client.get('/1.1/classes/RoundTrip', { where: { [k]: { $in: [v, 'other'] } } });
      assert.equal(inList.body.results.length, 1, `${k} $in`);
      const miss = await h().client.get('/1.1/classes/RoundTrip', { where: { [k]: v + 'x' } });
      assert.equal(miss.body.results.length, 0, `${k} near miss`);
    }
    const updated = await h().client.put(`/1.1/classes/RoundTrip/${created.body.objectId}`, { s0: nasty[3], 'nested.extra': nasty[0] });
    assert.equal(updated.status, 200, updated.text);
    const again = await h().client.get(`/1.1/classes/RoundTrip/${created.body.objectId}`);
    assert.equal(again.body.s0, nasty[3]);
    assert.equal(again.body.nested.extra, nasty[0]);
    assert.equal(again.body.nested[hostileKey], 'k');
    const [{ n }] = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM "Target"`);
    assert.equal(n, 2, 'Target still has its rows');
  });

  test('long but valid names and values still work (the limits are not off by one)', async () => {
    const key = 'k'.repeat(128);
    const res = await h().client.post('/1.1/classes/LongNames', { [key]: 'x'.repeat(100_000) });
    assert.equal(res.status, 201, res.text);
    const got = await h().client.get(`/1.1/classes/LongNames/${res.body.objectId}`, { keys: key });
    assert.equal(got.body[key].length, 100_000);
    const inOk = await h().client.get('/1.1/classes/Target', { where: { n: { $in: Array.from({ length: 10_000 }, (_, i) => i) } } });
    assert.equal(inOk.status, 200, inOk.text.slice(0, 200));
    assert.equal(inOk.body.results.length, 2);
    const className = 'C'.repeat(60);
    const longClass = await h().client.post(`/1.1/classes/${className}`, { a: 1 });
    assert.equal(longClass.status, 201, `a 60-character class name: ${longClass.text}`);
    const found = await h().client.get(`/1.1/classes/${className}`);
    assert.equal(found.body.results.length, 1);
  });

  test('class names that collide with index names of other classes work', async () => {
    for (const name of ['Coll', 'Coll_rperm', 'Coll_createdAt', 'Coll_updatedAt']) {
      const res = await h().client.post(`/1.1/classes/${name}`, { a: name });
      assert.equal(res.status, 201, `${name}: ${res.text}`);
      const got = await h().client.get(`/1.1/classes/${name}/${res.body.objectId}`);
      assert.equal(got.body.a, name);
    }
  });

  test('unknown query parameters named like prototype keys are ignored', async () => {
    const res = await h().client.request({ method: 'GET', url: '/1.1/classes/Target?__proto__=1&constructor=2&__proto__[isAdmin]=true' });
    assert.equal(res.status, 200, res.text);
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  });
});
