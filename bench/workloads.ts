import { DEFAULT_ACL, permsOf } from '../src/model/acl.ts';
import { newObjectId } from '../src/model/object-id.ts';
import {
  BATCH_SIZE, BENCH_CLASS, benchObject, DIRECT_BENCH_TABLE, DIRECT_OWNER_TABLE, pick, RANGE_LIMIT, randomCategories, randomRange,
} from './bench-data.ts';
import type { DirectOp } from './direct-load.ts';
import type { HttpRequestSpec } from './http-load.ts';
import { batchBody } from './seed.ts';
import { userWorkloads, type BenchUser } from './user-workloads.ts';
import { aclWorkloads, type AclBenchData } from './acl-workloads.ts';

/** What a workload must reach to pass. */
export type Target =
  | { kind: 'ratio'; min: number }
  | { kind: 'absolute'; min: number; unit: string }
  | { kind: 'index-plan' }
  | { kind: 'no-lost-increments' }
  | { kind: 'none' }
  /** Larder's throughput as a share of another workload's (by key), e.g. ACL vs public find. */
  | { kind: 'relative'; to: string; min: number };

/** The ids a workload works on; the direct tables hold the same rows under the same ids. */
export interface WorkloadData {
  benchIds: readonly string[];
  ownerIds: readonly string[];
  hotId: string;
  /** Signed-up users for the login and users/me workloads (bench/user-workloads.ts). */
  users?: readonly BenchUser[];
  /** The per-user-ACL data (bench/acl-workloads.ts). */
  acl?: AclBenchData;
}

/** One line of the results table: the same work over HTTP and directly with pg. */
export interface Workload {
  key: string;
  title: string;
  /** Objects per request/op: 50 for batches, so the table can show objects/s. */
  objectsPerOp: number;
  larder: HttpRequestSpec;
  direct: DirectOp;
  target: Target;
}

const COLUMNS = `"objectId", "createdAt", "updatedAt", acl, data`;
const READERS = ['*'];
const { rperm, wperm } = permsOf(DEFAULT_ACL);
const ACL_JSON = JSON.stringify(DEFAULT_ACL);
let seq = 1_000_000;

const classPath = `/1.1/classes/${BENCH_CLASS}`;
const rangeWhere = () => {
  const { low, high } = randomRange();
  return encodeURIComponent(JSON.stringify({ score: { $gte: low, $lt: high } }));
};
const increment = JSON.stringify({ n: { __op: 'Increment', amount: 1 } });

// The direct SQL is what a developer would write by hand against the same row format, with the
// same ACL filter Larder applies for an app-key caller (rperm && '{*}'), so both sides return
// the same rows. Fixed-shape statements (get by id, insert, increment, owners by ids) run as
// named prepared statements, the fastest way pg offers, so a ratio compares Larder with the best
// hand-written client. The range and count statements stay unnamed, as in Larder: after five
// runs PostgreSQL would switch a prepared range query to its generic plan, which ANDs the GIN
// rperm index in and read about 12x more (docs/benchmarks.md, "Prepared statements").
const SCORE = `(data->>'score')::numeric`;
const RANGE_SQL = `SELECT ${COLUMNS} FROM ${DIRECT_BENCH_TABLE}
  WHERE ${SCORE} >= $1 AND ${SCORE} < $2 AND rperm && $3::text[] ORDER BY ${SCORE} DESC LIMIT ${RANGE_LIMIT}`;
const INCREMENT_SQL = `UPDATE ${DIRECT_BENCH_TABLE}
  SET data = jsonb_set(data, '{n}', to_jsonb(coalesce((data->>'n')::numeric, 0) + 1)), "updatedAt" = now()
  WHERE "objectId" = $1 AND wperm && $2::text[] RETURNING "updatedAt"`;
const GET_SQL = `SELECT ${COLUMNS} FROM ${DIRECT_BENCH_TABLE} WHERE "objectId" = $1 AND rperm && $2::text[]`;
const OWNERS_SQL = `SELECT ${COLUMNS} FROM ${DIRECT_OWNER_TABLE} WHERE "objectId" = ANY($1::text[]) AND rperm && $2::text[]`;
const INSERT_SQL = `INSERT INTO ${DIRECT_BENCH_TABLE} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
  SELECT t.id, t.ts, t.ts, $3::jsonb, $4::text[], $5::text[], t.d::jsonb FROM unnest($1::text[], $2::timestamptz[], $6::text[]) AS t(id, ts, d)`;

function directInsert(ownerIds: readonly string[], count: number): DirectOp {
  return async (pool) => {
    const now = new Date().toISOString();
    const docs = Array.from({ length: count }, () => JSON.stringify(benchObject(ownerIds, seq++)));
    const ids = docs.map(() => newObjectId());
    const res = await pool.query({ name: 'direct_insert', text: INSERT_SQL, values: [ids, ids.map(() => now), ACL_JSON, rperm, wperm, docs] });
    if (res.rowCount !== count) throw new Error(`inserted ${res.rowCount} of ${count} rows`);
  };
}

function directIncrement(id: () => string): DirectOp {
  return async (pool) => {
    const res = await pool.query({ name: 'direct_increment', text: INCREMENT_SQL, values: [id(), READERS] });
    if (res.rowCount !== 1) throw new Error('increment matched no row');
  };
}

/** Counts `"error":` members in a batch answer: each is one failed item in a 200 response. */
export function batchItemErrors(body: string): number {
  return body.match(/"error"\s*:/g)?.length ?? 0;
}

/** The measured workloads, in the order they run (reads first, so writes do not grow their tables). */
export function workloads(d: WorkloadData): Workload[] {
  return [
    {
      key: 'get', title: 'get by id', objectsPerOp: 1, target: { kind: 'ratio', min: 0.4 },
      larder: { method: 'GET', path: () => `${classPath}/${pick(d.benchIds)}` },
      direct: async (pool) => {
        const res = await pool.query({ name: 'direct_get', text: GET_SQL, values: [pick(d.benchIds), READERS] });
        if (res.rowCount !== 1) throw new Error('get by id found no row');
      },
    },
    {
      key: 'range', title: 'range query, indexed (limit 20)', objectsPerOp: 1, target: { kind: 'ratio', min: 0.6 },
      larder: { method: 'GET', path: () => `${classPath}?where=${rangeWhere()}&order=-score&limit=${RANGE_LIMIT}` },
      direct: async (pool) => {
        const { low, high } = randomRange();
        await pool.query(RANGE_SQL, [low, high, READERS]);
      },
    },
    {
      key: 'count', title: 'count with $in', objectsPerOp: 1, target: { kind: 'index-plan' },
      larder: {
        method: 'GET',
        path: () => `${classPath}?limit=0&count=1&where=${encodeURIComponent(JSON.stringify({ category: { $in: randomCategories() } }))}`,
      },
      direct: async (pool) => {
        await pool.query(`SELECT count(*)::int AS n FROM ${DIRECT_BENCH_TABLE} WHERE data->>'category' = ANY($1::text[]) AND rperm && $2::text[]`, [randomCategories(), READERS]);
      },
    },
    {
      key: 'include', title: 'range query + include pointer', objectsPerOp: 1, target: { kind: 'none' },
      larder: { method: 'GET', path: () => `${classPath}?where=${rangeWhere()}&order=-score&limit=${RANGE_LIMIT}&include=owner` },
      direct: async (pool) => {
        // Two steps, as Larder does it: the page, then its owners in one query.
        const { low, high } = randomRange();
        const page = await pool.query<{ data: { owner?: { objectId?: string } } }>(RANGE_SQL, [low, high, READERS]);
        const ownerIds = [...new Set(page.rows.map((r) => r.data.owner?.objectId).filter((x): x is string => typeof x === 'string'))];
        if (ownerIds.length) await pool.query({ name: 'direct_owners', text: OWNERS_SQL, values: [ownerIds, READERS] });
      },
    },
    {
      key: 'create', title: 'create', objectsPerOp: 1, target: { kind: 'ratio', min: 0.5 },
      larder: { method: 'POST', path: () => classPath, body: () => JSON.stringify(benchObject(d.ownerIds, seq++)) },
      direct: directInsert(d.ownerIds, 1),
    },
    {
      key: 'batch', title: `batch of ${BATCH_SIZE} creates`, objectsPerOp: BATCH_SIZE, target: { kind: 'absolute', min: 25_000, unit: 'objects/s' },
      larder: {
        method: 'POST',
        path: () => '/1.1/batch',
        body: () => JSON.stringify(batchBody(Array.from({ length: BATCH_SIZE }, () => benchObject(d.ownerIds, seq++)))),
        hiddenErrors: batchItemErrors,
      },
      direct: directInsert(d.ownerIds, BATCH_SIZE),
    },
    {
      key: 'incr-hot', title: 'increment, one hot object', objectsPerOp: 1, target: { kind: 'no-lost-increments' },
      larder: { method: 'PUT', path: () => `${classPath}/${d.hotId}`, body: () => increment },
      direct: directIncrement(() => d.hotId),
    },
    {
      key: 'incr-random', title: 'increment, random objects', objectsPerOp: 1, target: { kind: 'no-lost-increments' },
      larder: { method: 'PUT', path: () => `${classPath}/${pick(d.benchIds)}`, body: () => increment },
      direct: directIncrement(() => pick(d.benchIds)),
    },
    ...userWorkloads(d.users ?? []),
    ...aclWorkloads(d.acl),
  ];
}
