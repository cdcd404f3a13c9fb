import type pg from 'pg';
import { DEFAULT_ACL, permsOf } from '../src/model/acl.ts';
import { newObjectId } from '../src/model/object-id.ts';
import { BATCH_SIZE, BENCH_CLASS, benchObject, OWNER_CLASS, OWNER_COUNT, ownerObject } from './bench-data.ts';
import { apiCall, HttpError } from './http-load.ts';

/** How the seed objects were written. */
export type SeedMethod = 'batch' | 'sql' | 'single requests';

/** The seeded data: ids to read and how it got there. */
export interface Seeded {
  ownerIds: string[];
  benchIds: string[];
  method: SeedMethod;
}

/** Runs `work` on every item with at most `concurrency` in flight; fails on the first error. */
async function eachLimited<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}

function objectIdOf(created: unknown, what: string): string {
  const id = (created as { objectId?: unknown } | undefined)?.objectId;
  if (typeof id !== 'string') throw new Error(`${what}: no objectId in ${JSON.stringify(created).slice(0, 200)}`);
  return id;
}

/** Creates one object through the API and returns its id. */
export async function createViaApi(baseUrl: string, className: string, fields: Record<string, unknown>): Promise<string> {
  return objectIdOf(await apiCall(baseUrl, 'POST', `/1.1/classes/${className}`, fields), `create ${className}`);
}

/** The body of a batch of creates in class Bench. */
export function batchBody(objects: readonly Record<string, unknown>[]): { requests: { method: string; path: string; body: unknown }[] } {
  return { requests: objects.map((body) => ({ method: 'POST', path: `/1.1/classes/${BENCH_CLASS}`, body })) };
}

/** Sends one batch of creates; returns the new ids, or undefined when /1.1/batch does not exist. */
async function createBatch(baseUrl: string, objects: readonly Record<string, unknown>[]): Promise<string[] | undefined> {
  let answer: unknown;
  try {
    answer = await apiCall(baseUrl, 'POST', '/1.1/batch', batchBody(objects));
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
  if (!Array.isArray(answer) || answer.length !== objects.length) throw new Error(`batch answered ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.map((item: unknown) => objectIdOf((item as { success?: unknown }).success, `batch item ${JSON.stringify(item).slice(0, 200)}`));
}

/**
 * Inserts Bench rows straight into the class table in Larder's row format (class-table.ts:
 * objectId, createdAt, updatedAt, acl, rperm, wperm, data), with the default public ACL. Used
 * only when /1.1/batch is not there; the class and its field types were registered through the
 * API by the first object, so the catalogue agrees with the rows.
 */
async function insertViaSql(pool: pg.Pool, objects: readonly Record<string, unknown>[]): Promise<string[]> {
  const { rperm, wperm } = permsOf(DEFAULT_ACL);
  const ids = objects.map(() => newObjectId());
  const base = Date.now();
  const times = objects.map((_, i) => new Date(base + i).toISOString());
  await pool.query(
    `INSERT INTO "${BENCH_CLASS}" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
     SELECT t.id, t.ts, t.ts, $3::jsonb, $4::text[], $5::text[], t.d::jsonb
     FROM unnest($1::text[], $2::timestamptz[], $6::text[]) AS t(id, ts, d)`,
    [ids, times, JSON.stringify(DEFAULT_ACL), rperm, wperm, objects.map((o) => JSON.stringify(o))],
  );
  return ids;
}

/**
 * Seeds BenchOwner (through the API) and `count` Bench objects: the first through the API (it
 * creates the class and locks the field types), the rest through /1.1/batch, or with SQL
 * INSERTs when batch is not available and a pool is given, or else one request per object.
 */
export async function seed(baseUrl: string, count: number, pool?: pg.Pool): Promise<Seeded> {
  const ownerIds: string[] = [];
  await eachLimited(Array.from({ length: OWNER_COUNT }, (_, i) => i), 8, async (i) => {
    ownerIds.push(await createViaApi(baseUrl, OWNER_CLASS, ownerObject(i)));
  });
  const benchIds = [await createViaApi(baseUrl, BENCH_CLASS, benchObject(ownerIds, 0))];
  const chunks: Record<string, unknown>[][] = [];
  for (let seq = 1; seq < count; seq += BATCH_SIZE) {
    chunks.push(Array.from({ length: Math.min(BATCH_SIZE, count - seq) }, (_, i) => benchObject(ownerIds, seq + i)));
  }
  if (!chunks.length) return { ownerIds, benchIds, method: 'single requests' };
  const first = await createBatch(baseUrl, chunks[0]);
  if (first) {
    benchIds.push(...first);
    await eachLimited(chunks.slice(1), 4, async (c) => {
      const ids = await createBatch(baseUrl, c);
      if (!ids) throw new Error('/1.1/batch disappeared during the seed');
      benchIds.push(...ids);
    });
    return { ownerIds, benchIds, method: 'batch' };
  }
  if (pool) {
    const rows = chunks.flat();
    for (let i = 0; i < rows.length; i += 1000) benchIds.push(...(await insertViaSql(pool, rows.slice(i, i + 1000))));
    return { ownerIds, benchIds, method: 'sql' };
  }
  await eachLimited(chunks.flat(), 16, async (o) => {
    benchIds.push(await createViaApi(baseUrl, BENCH_CLASS, o));
  });
  return { ownerIds, benchIds, method: 'single requests' };
}
