/**
 * The ACL workloads of the bench (issue 3): a find on a class where every object has a per-user
 * ACL (10,000 objects, 1,000 users, the querying user holding 20 roles through inheritance),
 * against the same find on a public class. Target: the per-user-ACL find keeps >= 0.8 of the
 * public find's throughput. All finds run with the same session, so session resolution costs the
 * same on every side; the difference is the ACL filter (`rperm && readers`, GIN-indexed).
 *
 * The shape gives the user its own 10 objects, so its page is shorter than the public
 * one (10 against 100 objects encoded). A third class measures the other extreme, judged by
 * nothing but shown beside the others: every tenth object is also readable through the top role
 * of the chain, so the user reads 1,000 objects spread over the class and gets a full page, and
 * PostgreSQL must step over 9 unreadable rows for each readable one (the direct SQL pays that too).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { apiCall, AUTH_HEADERS } from './http-load.ts';
import type { Workload } from './workloads.ts';

/** Classes, sizes and the measured user's roles. */
export const ACL_PRIVATE_CLASS = 'BenchAclPrivate';
export const ACL_PUBLIC_CLASS = 'BenchAclPublic';
export const ACL_SHARED_CLASS = 'BenchAclShared';
export const ACL_OBJECTS = 10_000;
export const ACL_USERS = 1_000;
export const ACL_ROLES = 20;
/** Page size of both finds (the default limit of a query). */
export const ACL_PAGE = 100;
const BATCH = 50;
const PARALLEL = 4;

/** What the ACL workloads read. */
export interface AclBenchData {
  /** Session token of the user who holds all 20 roles. */
  sessionToken: string;
  /** That user's ACL principals: '*', its id, role:r0 ... role:r19. */
  readers: string[];
}

const COLUMNS = `"objectId", "createdAt", "updatedAt", acl, data`;

/** Every this-many-th private object is also readable by SHARED_ROLE (1,000 of 10,000). */
export const ACL_SHARED_EVERY = 10;
/** The role that shares them: the top of the chain, so the measured user holds it only by inheritance. */
export const ACL_SHARED_ROLE = `role:r${ACL_ROLES - 1}`;

// As the issue specifies: every object readable and writable by exactly one user (10 per user).
// The 20 roles lengthen the readers array of every query (22 entries) without matching rows.
// With `shared`, every tenth is also readable by the role at the top of the inheritance chain.
function aclObject(i: number, userIds: readonly string[], shared: boolean): Record<string, unknown> {
  const acl: Record<string, unknown> = { [userIds[i % userIds.length]]: { read: true, write: true } };
  if (shared && i % ACL_SHARED_EVERY === 0) acl[ACL_SHARED_ROLE] = { read: true };
  return { n: i, label: `object ${i}`, ACL: acl };
}

async function createAll(baseUrl: string, className: string, objects: readonly Record<string, unknown>[]): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < objects.length; i += BATCH) batches.push(objects.slice(i, i + BATCH));
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      const answer = await apiCall(baseUrl, 'POST', '/1.1/batch', { requests: batch.map((body) => ({ method: 'POST', path: `/1.1/classes/${className}`, body })) });
      if (!Array.isArray(answer) || answer.some((x: { success?: unknown }) => !x.success)) throw new Error(`ACL seed batch answered ${JSON.stringify(answer).slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
}

/**
 * Seeds the ACL data: 1,000 users written straight into `_User` in Larder's row format (only a
 * session token matters here; sign-up's scrypt would dominate the seeding time), a chain of 20
 * roles through the API (the user is in r0; r1 has child r0, ..., r19 has child r18), and
 * 10,000 objects in each of the three classes through /1.1/batch.
 */
export async function seedAclBench(baseUrl: string, pool: pg.Pool): Promise<AclBenchData> {
  const userIds = Array.from({ length: ACL_USERS }, () => randomBytes(12).toString('hex'));
  const tokens = userIds.map(() => randomBytes(16).toString('hex').slice(0, 25));
  await pool.query(
    `INSERT INTO "_User" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
     SELECT u, now(), now(), jsonb_build_object('*', '{"read":true}'::jsonb, u, '{"read":true,"write":true}'::jsonb), ARRAY['*', u], ARRAY[u],
       jsonb_build_object('username', 'acl_bench_' || u, 'sessionToken', t)
     FROM unnest($1::text[], $2::text[]) AS x(u, t)`,
    [userIds, tokens],
  );
  const me = userIds[0];
  let child: string | undefined;
  for (let i = 0; i < ACL_ROLES; i++) {
    const body: Record<string, unknown> = { name: `r${i}`, ACL: { '*': { read: true } } };
    const relation = i === 0 ? { users: [{ __type: 'Pointer', className: '_User', objectId: me }] } : { roles: [{ __type: 'Pointer', className: '_Role', objectId: child }] };
    for (const [key, objects] of Object.entries(relation)) body[key] = { __op: 'AddRelation', objects };
    const created = (await apiCall(baseUrl, 'POST', '/1.1/roles', body)) as { objectId?: unknown };
    if (typeof created.objectId !== 'string') throw new Error(`role r${i}: ${JSON.stringify(created)}`);
    child = created.objectId;
  }
  await createAll(baseUrl, ACL_PRIVATE_CLASS, Array.from({ length: ACL_OBJECTS }, (_, i) => aclObject(i, userIds, false)));
  await createAll(baseUrl, ACL_SHARED_CLASS, Array.from({ length: ACL_OBJECTS }, (_, i) => aclObject(i, userIds, true)));
  await createAll(baseUrl, ACL_PUBLIC_CLASS, Array.from({ length: ACL_OBJECTS }, (_, i) => ({ n: i, label: `object ${i}` })));
  await pool.query(`ANALYZE "${ACL_PRIVATE_CLASS}"; ANALYZE "${ACL_SHARED_CLASS}"; ANALYZE "${ACL_PUBLIC_CLASS}"`);
  return { sessionToken: tokens[0], readers: ['*', me, ...Array.from({ length: ACL_ROLES }, (_, i) => `role:r${i}`)] };
}

function find(className: string, d: AclBenchData): Pick<Workload, 'larder' | 'direct'> {
  const sql = `SELECT ${COLUMNS} FROM "${className}" WHERE rperm && $1::text[] ORDER BY "createdAt", "objectId" LIMIT ${ACL_PAGE}`;
  return {
    larder: { method: 'GET', path: () => `/1.1/classes/${className}?limit=${ACL_PAGE}`, headers: () => ({ 'x-lc-session': d.sessionToken }) },
    direct: async (p) => {
      await p.query(sql, [d.readers]);
    },
  };
}

/** The three finds; the per-user one is judged against the public one. */
export function aclWorkloads(d: AclBenchData | undefined): Workload[] {
  if (!d) return [];
  return [
    { key: 'acl-public', title: `find, public class (limit ${ACL_PAGE} of 10,000, user in 20 roles)`, objectsPerOp: 1, target: { kind: 'none' }, ...find(ACL_PUBLIC_CLASS, d) },
    {
      key: 'acl-private', title: `find, per-user ACL class (same find: its 10 of 10,000, user in 20 roles)`, objectsPerOp: 1,
      target: { kind: 'relative', to: 'acl-public', min: 0.8 }, ...find(ACL_PRIVATE_CLASS, d),
    },
    {
      key: 'acl-shared', title: `find, per-user ACL + every 10th via the top role (limit ${ACL_PAGE} of the 1,000 it may read)`, objectsPerOp: 1,
      target: { kind: 'none' }, ...find(ACL_SHARED_CLASS, d),
    },
  ];
}

async function page(base: string, className: string, session?: string): Promise<string[]> {
  const res = await fetch(`${base}/1.1/classes/${className}?limit=${ACL_PAGE}`, { headers: { ...AUTH_HEADERS, ...(session ? { 'x-lc-session': session } : {}) }, signal: AbortSignal.timeout(60_000) });
  const body = (await res.json()) as { results?: { objectId: string }[] };
  if (res.status !== 200 || !Array.isArray(body.results)) throw new Error(`${className} find answered ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
  return body.results.map((r) => r.objectId);
}

/**
 * Sanity: the user's page is exactly SQL's first page of the rows its readers may see, and
 * without the session the per-user class shows nothing (the ACL is really applied).
 */
export async function checkAclWorkload(key: string, base: string, pool: pg.Pool, d: AclBenchData | undefined): Promise<void> {
  if (!d) throw new Error('no ACL data was seeded');
  const className = key === 'acl-private' ? ACL_PRIVATE_CLASS : key === 'acl-shared' ? ACL_SHARED_CLASS : ACL_PUBLIC_CLASS;
  const got = await page(base, className, d.sessionToken);
  const { rows } = await pool.query<{ objectId: string }>(`SELECT "objectId" FROM "${className}" WHERE rperm && $1::text[] ORDER BY "createdAt", "objectId" LIMIT ${ACL_PAGE}`, [d.readers]);
  if (JSON.stringify(got) !== JSON.stringify(rows.map((r) => r.objectId))) throw new Error(`${className}: the page differs from SQL's`);
  // The user owns exactly its 10; the other classes fill a page.
  const expected = key === 'acl-private' ? ACL_OBJECTS / ACL_USERS : ACL_PAGE;
  if (got.length !== expected) throw new Error(`${className}: the page has ${got.length} objects, not ${expected}`);
  if (key !== 'acl-public' && (await page(base, className)).length !== 0) throw new Error(`${className}: an anonymous find saw objects`);
}
