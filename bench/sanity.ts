import type pg from 'pg';
import { BENCH_CLASS, benchObject, categoryName, RANGE_LIMIT } from './bench-data.ts';
import { apiCall } from './http-load.ts';
import { batchBody } from './seed.ts';
import { checkUserWorkload } from './user-workloads.ts';
import { checkAclWorkload } from './acl-workloads.ts';
import type { WorkloadData } from './workloads.ts';

type Json = Record<string, unknown>;

function asObject(v: unknown, what: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what}: expected an object, got ${JSON.stringify(v)?.slice(0, 200)}`);
  return v as Json;
}

function results(v: unknown, what: string): Json[] {
  const list = asObject(v, what).results;
  if (!Array.isArray(list)) throw new Error(`${what}: no results array`);
  return list.map((x, i) => asObject(x, `${what} result ${i}`));
}

const classPath = `/1.1/classes/${BENCH_CLASS}`;

async function checkRange(base: string, pool: pg.Pool, include: boolean): Promise<void> {
  const low = 40_000, high = 60_000;
  const where = encodeURIComponent(JSON.stringify({ score: { $gte: low, $lt: high } }));
  const got = results(await apiCall(base, 'GET', `${classPath}?where=${where}&order=-score&limit=${RANGE_LIMIT}${include ? '&include=owner' : ''}`), 'range query');
  const { rows } = await pool.query<{ s: number }>(
    `SELECT (data->>'score')::numeric AS s FROM "${BENCH_CLASS}" WHERE (data->>'score')::numeric >= $1 AND (data->>'score')::numeric < $2
     ORDER BY 1 DESC LIMIT ${RANGE_LIMIT}`,
    [low, high],
  );
  const scores = got.map((o) => o.score);
  const expected = rows.map((r) => Number(r.s));
  if (JSON.stringify(scores) !== JSON.stringify(expected)) throw new Error(`range query returned scores ${JSON.stringify(scores)}, SQL says ${JSON.stringify(expected)}`);
  if (include) {
    const bad = got.find((o) => typeof asObject(o.owner, 'owner').name !== 'string');
    if (bad) throw new Error(`include=owner left a pointer unresolved: ${JSON.stringify(bad.owner)}`);
  }
}

/**
 * Checks, with one request, that a workload's endpoint answers correctly before it is measured,
 * comparing with SQL on the same table where there is something to compare. A fast wrong
 * answer must not show up as a good number.
 */
export async function checkWorkload(key: string, base: string, pool: pg.Pool, d: WorkloadData): Promise<void> {
  switch (key) {
    case 'get': {
      const id = d.benchIds[0];
      const obj = asObject(await apiCall(base, 'GET', `${classPath}/${id}`), 'get by id');
      if (obj.objectId !== id || typeof obj.score !== 'number') throw new Error(`get by id answered ${JSON.stringify(obj).slice(0, 200)}`);
      return;
    }
    case 'range':
    case 'include':
      return checkRange(base, pool, key === 'include');
    case 'count': {
      const cats = [categoryName(1), categoryName(2), categoryName(3)];
      const where = encodeURIComponent(JSON.stringify({ category: { $in: cats } }));
      const obj = asObject(await apiCall(base, 'GET', `${classPath}?limit=0&count=1&where=${where}`), 'count');
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${BENCH_CLASS}" WHERE data->>'category' = ANY($1::text[])`, [cats]);
      if (obj.count !== rows[0].n || !Array.isArray(obj.results) || obj.results.length !== 0) {
        throw new Error(`count answered ${JSON.stringify(obj).slice(0, 200)}, SQL says ${rows[0].n}`);
      }
      return;
    }
    case 'create': {
      const obj = asObject(await apiCall(base, 'POST', classPath, benchObject(d.ownerIds, 0)), 'create');
      if (typeof obj.objectId !== 'string') throw new Error(`create answered ${JSON.stringify(obj)}`);
      return;
    }
    case 'batch': {
      const answer = await apiCall(base, 'POST', '/1.1/batch', batchBody([benchObject(d.ownerIds, 0), benchObject(d.ownerIds, 1)]));
      if (!Array.isArray(answer) || answer.length !== 2 || answer.some((x) => !asObject(x, 'batch item').success)) {
        throw new Error(`batch answered ${JSON.stringify(answer).slice(0, 300)}`);
      }
      return;
    }
    case 'incr-hot':
    case 'incr-random': {
      const obj = asObject(await apiCall(base, 'PUT', `${classPath}/${d.hotId}`, { n: { __op: 'Increment', amount: 1 } }), 'increment');
      if (typeof obj.updatedAt !== 'string') throw new Error(`increment answered ${JSON.stringify(obj)}`);
      return;
    }
    case 'login':
    case 'me':
      return checkUserWorkload(key, base, d.users ?? []);
    case 'acl-public':
    case 'acl-private':
    case 'acl-shared':
      return checkAclWorkload(key, base, pool, d.acl);
    default:
      throw new Error(`no sanity check for workload ${key}`);
  }
}
