import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClassSchema } from '../model/class-schema.ts';
import { doubleSortKeys } from './double-sort-keys.ts';

const SCHEMA: ClassSchema = {
  name: 'Bench',
  fields: {
    n: { type: 'Number' },
    score: { type: 'Number' },
    s: { type: 'String' },
    meta: { type: 'Object' },
  },
};

// pg_get_indexdef as PostgreSQL prints `larder index add`'s index on n.
const N_INDEX = `CREATE INDEX "_lx_1_f_n" ON larder."Bench" USING btree (((data ->> 'n'::text))::numeric NULLS FIRST, "objectId")`;
const CREATED_INDEX = `CREATE INDEX "_lx_1_createdAt" ON larder."Bench" USING btree ("createdAt")`;

const keys = (order: string | undefined, indexes: string[] = []) => [...doubleSortKeys(order, SCHEMA, indexes)].sort();

describe('doubleSortKeys', () => {
  test('a Number field no index names', () => assert.deepEqual(keys('-score', [N_INDEX, CREATED_INDEX]), ['score']));
  test('an indexed Number field keeps the index expression', () => assert.deepEqual(keys('n', [N_INDEX]), []));
  test('each key on its own', () => assert.deepEqual(keys('-score, n ,s', [N_INDEX]), ['score']));
  test('only Number fields of the schema', () => assert.deepEqual(keys('s,meta,unknown,createdAt,objectId'), []));
  test('a nested path is not a typed field', () => assert.deepEqual(keys('score.x'), []));
  test('no order', () => {
    assert.deepEqual(keys(undefined), []);
    assert.deepEqual(keys(''), []);
  });
  test('an index naming the field anywhere (a later column, a predicate) keeps it numeric', () => {
    const later = `CREATE INDEX x ON larder."Bench" USING btree ("createdAt", ((data ->> 'score'::text))::numeric)`;
    const partial = `CREATE INDEX y ON larder."Bench" USING btree ("createdAt") WHERE (((data ->> 'score'::text))::numeric > (0)::numeric)`;
    assert.deepEqual(keys('score', [later]), []);
    assert.deepEqual(keys('score', [partial]), []);
  });
});
