import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import type { Condition } from './ast.ts';
import { MAX_CONDITIONS, MAX_LIST_VALUES, MAX_REGEX_LENGTH, MAX_SUBQUERIES, MAX_WHERE_DEPTH } from './limits.ts';
import { parseWhere } from './parse-where.ts';

const ptr = (objectId: string, className = 'Post') => ({ __type: 'Pointer', className, objectId });
const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude });

const PARSES: Array<[name: string, where: unknown, expected: Condition]> = [
  ['undefined matches all', undefined, { kind: 'and', conditions: [] }],
  ['empty object matches all', {}, { kind: 'and', conditions: [] }],
  ['equality', { a: 1 }, { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'number', value: 1 } }],
  ['string', { a: 'x' }, { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'string', value: 'x' } }],
  ['boolean', { a: false }, { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'boolean', value: false } }],
  ['null', { a: null }, { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'null' } }],
  ['date normalised', { d: { __type: 'Date', iso: '2020-01-02T03:04:05Z' } }, { kind: 'compare', field: ['d'], op: 'eq', value: { type: 'date', iso: '2020-01-02T03:04:05.000Z' } }],
  ['date with offset', { d: { __type: 'Date', iso: '2020-01-02T03:04:05.678+02:00' } }, { kind: 'compare', field: ['d'], op: 'eq', value: { type: 'date', iso: '2020-01-02T01:04:05.678Z' } }],
  ['pointer', { p: ptr('x1') }, { kind: 'compare', field: ['p'], op: 'eq', value: { type: 'pointer', className: 'Post', objectId: 'x1' } }],
  ['object value', { o: { k: 1 } }, { kind: 'compare', field: ['o'], op: 'eq', value: { type: 'json', value: { k: 1 } } }],
  ['array value', { o: [1, 'a'] }, { kind: 'compare', field: ['o'], op: 'eq', value: { type: 'json', value: [1, 'a'] } }],
  ['file normalised to {__type, id}', { f: { __type: 'File', objectId: 'f1', url: 'http://x' } }, { kind: 'compare', field: ['f'], op: 'eq', value: { type: 'json', value: { __type: 'File', id: 'f1' } } }],
  ['dotted key', { 'a.b.c': 1 }, { kind: 'compare', field: ['a', 'b', 'c'], op: 'eq', value: { type: 'number', value: 1 } }],
  ['reserved key', { objectId: 'x' }, { kind: 'compare', field: ['objectId'], op: 'eq', value: { type: 'string', value: 'x' } }],
  ['comparisons AND-ed on one key', { a: { $gt: 1, $lte: 5 } }, { kind: 'and', conditions: [
    { kind: 'compare', field: ['a'], op: 'gt', value: { type: 'number', value: 1 } },
    { kind: 'compare', field: ['a'], op: 'lte', value: { type: 'number', value: 5 } },
  ] }],
  ['$ne $lt $gte', { a: { $ne: 1, $lt: 3, $gte: 0 } }, { kind: 'and', conditions: [
    { kind: 'compare', field: ['a'], op: 'ne', value: { type: 'number', value: 1 } },
    { kind: 'compare', field: ['a'], op: 'lt', value: { type: 'number', value: 3 } },
    { kind: 'compare', field: ['a'], op: 'gte', value: { type: 'number', value: 0 } },
  ] }],
  ['$in', { a: { $in: [1, 'x'] } }, { kind: 'in', field: ['a'], negated: false, values: [{ type: 'number', value: 1 }, { type: 'string', value: 'x' }] }],
  ['$nin', { a: { $nin: [null] } }, { kind: 'in', field: ['a'], negated: true, values: [{ type: 'null' }] }],
  ['$all', { a: { $all: ['x'] } }, { kind: 'all', field: ['a'], values: [{ type: 'string', value: 'x' }] }],
  ['$size', { a: { $size: 2 } }, { kind: 'size', field: ['a'], size: 2 }],
  ['$exists', { a: { $exists: false } }, { kind: 'exists', field: ['a'], exists: false }],
  ['$regex with $options', { a: { $regex: '^\\Qa.b\\E', $options: 'i' } }, { kind: 'regex', field: ['a'], source: '^\\Qa.b\\E', options: 'i', pattern: '(?pi)^a\\.b' }],
  ['$not around $regex (CQL not like)', { a: { $not: { $regex: '^x', $options: 'i' } } }, { kind: 'regex', field: ['a'], source: '^x', options: 'i', pattern: '(?pi)^x', negated: true }],
  ['$inQuery defaults', { p: { $inQuery: { className: 'Post', where: { a: 1 } } } }, { kind: 'inQuery', field: ['p'], negated: false, query: {
    className: 'Post', where: { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'number', value: 1 } }, limit: 100, skip: 0,
  } }],
  ['$notInQuery with limit, skip, order', { p: { $notInQuery: { className: 'Post', where: {}, limit: 5, skip: 2, order: '-a', keys: 'a', include: 'b' } } }, { kind: 'inQuery', field: ['p'], negated: true, query: {
    className: 'Post', where: { kind: 'and', conditions: [] }, limit: 5, skip: 2, order: '-a',
  } }],
  ['inner limit out of range becomes 100', { p: { $inQuery: { className: 'Post', limit: 5000 } } }, { kind: 'inQuery', field: ['p'], negated: false, query: {
    className: 'Post', where: { kind: 'and', conditions: [] }, limit: 100, skip: 0,
  } }],
  ['$select', { a: { $select: { query: { className: 'Post', where: {} }, key: 'b.c' } } }, { kind: 'select', field: ['a'], negated: false, key: ['b', 'c'], query: {
    className: 'Post', where: { kind: 'and', conditions: [] }, limit: 100, skip: 0,
  } }],
  ['$dontSelect', { a: { $dontSelect: { query: { className: 'Post' }, key: 'objectId' } } }, { kind: 'select', field: ['a'], negated: true, key: ['objectId'], query: {
    className: 'Post', where: { kind: 'and', conditions: [] }, limit: 100, skip: 0,
  } }],
  ['$relatedTo', { $relatedTo: { object: ptr('o1', 'Album'), key: 'photos' } }, { kind: 'relatedTo', owner: { className: 'Album', objectId: 'o1' }, key: 'photos' }],
  ['$nearSphere alone', { loc: { $nearSphere: geo(1, 2) } }, { kind: 'near', field: ['loc'], point: { latitude: 1, longitude: 2 } }],
  ['$nearSphere km', { loc: { $nearSphere: geo(1, 2), $maxDistanceInKilometers: 6371 } }, { kind: 'near', field: ['loc'], point: { latitude: 1, longitude: 2 }, maxRadians: 1 }],
  ['$nearSphere miles and min radians', { loc: { $nearSphere: geo(1, 2), $maxDistanceInMiles: 3958.8, $minDistanceInRadians: 0.5 } }, { kind: 'near', field: ['loc'], point: { latitude: 1, longitude: 2 }, maxRadians: 1, minRadians: 0.5 }],
  ['$nearSphere $maxDistance', { loc: { $nearSphere: geo(1, 2), $maxDistance: 0.2 } }, { kind: 'near', field: ['loc'], point: { latitude: 1, longitude: 2 }, maxRadians: 0.2 }],
  ['$nearSphere $maxDistanceInRadians, min km and miles', { loc: { $nearSphere: geo(1, 2), $maxDistanceInRadians: 2, $minDistanceInKilometers: 0 } }, { kind: 'near', field: ['loc'], point: { latitude: 1, longitude: 2 }, maxRadians: 2, minRadians: 0 }],
  ['$minDistanceInMiles', { loc: { $nearSphere: geo(1, 2), $minDistanceInMiles: 0 } }, { kind: 'near', field: ['loc'], point: { latitude: 1, longitude: 2 }, minRadians: 0 }],
  ['$within $box', { loc: { $within: { $box: [geo(0, 0), geo(1, 1)] } } }, { kind: 'box', field: ['loc'], southwest: { latitude: 0, longitude: 0 }, northeast: { latitude: 1, longitude: 1 } }],
  ['$or', { $or: [{ a: 1 }, { b: 2 }] }, { kind: 'or', conditions: [
    { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'number', value: 1 } },
    { kind: 'compare', field: ['b'], op: 'eq', value: { type: 'number', value: 2 } },
  ] }],
  ['$and flattens', { $and: [{ a: 1 }, { b: 2 }] }, { kind: 'and', conditions: [
    { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'number', value: 1 } },
    { kind: 'compare', field: ['b'], op: 'eq', value: { type: 'number', value: 2 } },
  ] }],
  ['array where is an implicit $and', [{ a: 1 }, { b: 2 }], { kind: 'and', conditions: [
    { kind: 'compare', field: ['a'], op: 'eq', value: { type: 'number', value: 1 } },
    { kind: 'compare', field: ['b'], op: 'eq', value: { type: 'number', value: 2 } },
  ] }],
  ['limit inside $or is a field name', { $or: [{ limit: 1 }] }, { kind: 'or', conditions: [
    { kind: 'compare', field: ['limit'], op: 'eq', value: { type: 'number', value: 1 } },
  ] }],
];

describe('parseWhere: accepted input', () => {
  for (const [name, where, expected] of PARSES) {
    test(name, () => assert.deepEqual(parseWhere(where), expected));
  }
});

/** Builds `{$or: [{$or: [... {a: 1} ...]}]}` nested `levels` deep. */
function nestedOr(levels: number): unknown {
  let where: unknown = { a: 1 };
  for (let i = 0; i < levels; i++) where = { $or: [where] };
  return where;
}

/** Builds inner queries nested `levels` deep. */
function nestedInQuery(levels: number): unknown {
  let where: unknown = {};
  for (let i = 0; i < levels; i++) where = { p: { $inQuery: { className: 'Post', where } } };
  return where;
}

const REJECTS: Array<[name: string, where: unknown, code: number, message: RegExp]> = [
  ['a string where', 'a=1', 102, /must be a JSON object/],
  ['a number where', 5, 102, /must be a JSON object/],
  ['unknown operator', { a: { $foo: 1 } }, 102, /Unknown operator "\$foo"/],
  ['$where (server-side JS)', { $where: 'sleep(1000)' }, 102, /Unknown operator "\$where"/],
  ['$eq is not a LeanCloud operator', { a: { $eq: 1 } }, 102, /Unknown operator/],
  ['$relatedTo under a field', { a: { $relatedTo: {} } }, 102, /Unknown operator/],
  ['operators mixed with keys', { a: { $gt: 1, b: 2 } }, 102, /mixes \$ operators/],
  ['__proto__ key', JSON.parse('{"__proto__": {"x": 1}}'), 105, /__proto__/],
  ['__proto__ in a dotted path', { 'a.__proto__': 1 }, 105, /__proto__/],
  ['__proto__ nested in $or', JSON.parse('{"$or": [{"__proto__": 1}]}'), 105, /__proto__/],
  ['key with invalid characters', { 'a-b': 1 }, 105, /Invalid key name/],
  ['empty key', { '': 1 }, 105, /Invalid key name/],
  ['empty path segment', { 'a..b': 1 }, 105, /Invalid key name/],
  ['$ in a nested segment', { 'a.$b': 1 }, 105, /Invalid key name/],
  ['dotted reserved field', { 'createdAt.x': 1 }, 105, /no nested fields/],
  ['ACL', { ACL: 1 }, 102, /ACL/],
  ['NUL in a value', { a: 'x\u0000y' }, 102, /NUL/],
  ['lone surrogate', { a: '\ud800' }, 102, /surrogate/],
  ['bad regex option', { a: { $regex: 'x', $options: 'g' } }, 102, /unsupported option "g"/],
  ['$regex not a string', { a: { $regex: 5 } }, 102, /string pattern/],
  ['$not around something else', { a: { $not: { $gt: 1 } } }, 102, /\$not takes only/],
  ['$not with extra members', { a: { $not: { $regex: 'x', $gt: 1 } } }, 102, /\$not takes only/],
  ['$options without $regex', { a: { $options: 'i' } }, 102, /together with \$regex/],
  ['unbalanced regex', { a: { $regex: '(a' } }, 102, /missing \)/],
  ['regex too long', { a: { $regex: 'a'.repeat(MAX_REGEX_LENGTH + 1) } }, 102, /limited to 1000/],
  ['$in not an array', { a: { $in: 1 } }, 102, /needs an array/],
  ['huge $in', { a: { $in: new Array(MAX_LIST_VALUES + 1).fill(1) } }, 102, /at most 10000 values/],
  ['$size negative', { a: { $size: -1 } }, 102, /non-negative integer/],
  ['$size not an integer', { a: { $size: 1.5 } }, 102, /non-negative integer/],
  ['$exists not boolean', { a: { $exists: 1 } }, 102, /true or false/],
  ['empty $or', { $or: [] }, 102, /non-empty array/],
  ['$or not an array', { $or: { a: 1 } }, 102, /non-empty array/],
  ['$or member not an object', { $or: [1] }, 102, /must be a JSON object/],
  ['deep nesting', nestedOr(MAX_WHERE_DEPTH + 1), 102, /levels of nested/],
  ['too many conditions', Object.fromEntries(Array.from({ length: MAX_CONDITIONS + 1 }, (_, i) => [`f${i}`, 1])), 102, /at most 500 conditions/],
  ['too many inner queries', Object.fromEntries(Array.from({ length: MAX_SUBQUERIES + 1 }, (_, i) => [`f${i}`, { $inQuery: { className: 'Post' } }])), 102, /inner queries/],
  ['inner queries nested too deep', nestedInQuery(MAX_WHERE_DEPTH + 1), 102, /too complex/],
  ['deeply nested value', { a: JSON.parse('['.repeat(100) + ']'.repeat(100)) }, 102, /nesting inside a value/],
  ['invalid date', { d: { __type: 'Date', iso: 'yesterday' } }, 102, /Invalid Date/],
  ['date out of range', { d: { __type: 'Date', iso: '2020-13-45T00:00:00Z' } }, 102, /Invalid Date/],
  ['unknown __type', { a: { __type: 'Widget' } }, 102, /Unsupported __type/],
  ['malformed pointer', { p: { __type: 'Pointer', className: 'Post' } }, 106, /Malformed pointer/],
  ['$relatedTo without a pointer', { $relatedTo: { object: 'x', key: 'k' } }, 106, /Malformed pointer/],
  ['$relatedTo with a bad key', { $relatedTo: { object: ptr('o'), key: 'a-b' } }, 105, /Invalid key name/],
  ['$inQuery without className', { p: { $inQuery: { where: {} } } }, 103, /class name/],
  ['$inQuery with a hostile className', { p: { $inQuery: { className: 'Post"; DROP TABLE x; --' } } }, 103, /class name/],
  ['$inQuery with a misspelt member', { p: { $inQuery: { className: 'Post', whre: {} } } }, 102, /Unknown member "whre"/],
  ['$inQuery with a negative skip', { p: { $inQuery: { className: 'Post', skip: -1 } } }, 102, /skip/],
  ['$select without key', { a: { $select: { query: { className: 'Post' } } } }, 102, /string key/],
  ['$nearSphere inside $or', { $or: [{ loc: { $nearSphere: geo(0, 0) } }] }, 102, /inside \$or/],
  ['$maxDistance without $nearSphere', { loc: { $maxDistanceInKilometers: 5 } }, 102, /together with \$nearSphere/],
  ['two max distances', { loc: { $nearSphere: geo(0, 0), $maxDistance: 1, $maxDistanceInMiles: 2 } }, 102, /only one/],
  ['negative distance', { loc: { $nearSphere: geo(0, 0), $maxDistance: -1 } }, 102, /non-negative/],
  ['latitude out of range', { loc: { $nearSphere: geo(91, 0) } }, 302, /Invalid GeoPoint/],
  ['longitude out of range', { loc: { $within: { $box: [geo(0, -181), geo(1, 1)] } } }, 302, /Invalid GeoPoint/],
  ['GeoPoint value out of range', { loc: geo(0, 200) }, 302, /Invalid GeoPoint/],
  ['box upside down', { loc: { $within: { $box: [geo(10, 0), geo(0, 1)] } } }, 302, /southwest corner/],
  ['$within $polygon', { loc: { $within: { $polygon: [] } } }, 102, /only \{\$box/],
  ['$box with one corner', { loc: { $within: { $box: [geo(0, 0)] } } }, 102, /two GeoPoints/],
];

describe('parseWhere: rejected input', () => {
  for (const [name, where, code, message] of REJECTS) {
    test(name, () => {
      assert.throws(
        () => parseWhere(where),
        (err: unknown) => {
          assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
          assert.equal(err.code, code, err.message);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }
});
