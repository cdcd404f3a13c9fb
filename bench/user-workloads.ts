/**
 * The user workloads of the bench: login (POST /1.1/login) and GET /1.1/users/me, against the
 * same work done directly with pg (the user lookup through the same unique index, and for login
 * the same scrypt verification in this process). Users are signed up through the API, so their
 * rows, indexes and password hashes are exactly what Larder makes.
 */
import type pg from 'pg';
import { verifyPassword } from '../src/users/password.ts';
import { pick } from './bench-data.ts';
import { apiCall, AUTH_HEADERS, HttpError } from './http-load.ts';
import type { Workload } from './workloads.ts';

/** A signed-up bench user. */
export interface BenchUser {
  objectId: string;
  username: string;
  password: string;
  sessionToken: string;
}

/** Users signed up before the user workloads; logins pick one at random. */
export const BENCH_USER_COUNT = 200;
/** Sign-ups in flight at once while seeding (each costs one scrypt hash on the server). */
const SEED_PARALLEL = 8;

function asRecord(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what}: expected an object, got ${JSON.stringify(v)?.slice(0, 200)}`);
  return v as Record<string, unknown>;
}

/** Signs up `count` users through POST /1.1/users. */
export async function seedBenchUsers(baseUrl: string, count = BENCH_USER_COUNT): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  for (let start = 0; start < count; start += SEED_PARALLEL) {
    const batch = Array.from({ length: Math.min(SEED_PARALLEL, count - start) }, async (_, i) => {
      const username = `bench_user_${start + i}`;
      const password = `pw-${start + i}-bench`;
      const body = asRecord(await apiCall(baseUrl, 'POST', '/1.1/users', { username, password }), 'sign-up');
      return { objectId: String(body.objectId), username, password, sessionToken: String(body.sessionToken) };
    });
    users.push(...(await Promise.all(batch)));
  }
  return users;
}

const USER_COLUMNS = `"objectId", "createdAt", "updatedAt", acl, data`;

/** The login and users/me workloads (no target: the issue asks for the numbers). */
export function userWorkloads(users: readonly BenchUser[]): Workload[] {
  if (!users.length) return [];
  return [
    {
      key: 'login', title: 'login (username + password)', objectsPerOp: 1, target: { kind: 'none' },
      larder: {
        method: 'POST',
        path: () => '/1.1/login',
        body: () => {
          const u = pick(users);
          return JSON.stringify({ username: u.username, password: u.password });
        },
      },
      direct: async (pool) => {
        const u = pick(users);
        const res = await pool.query<{ data: Record<string, unknown> }>({ name: 'direct_login', text: `SELECT ${USER_COLUMNS} FROM "_User" WHERE data->>'username' = $1`, values: [u.username] });
        if (!res.rows[0] || !(await verifyPassword(u.password, res.rows[0].data)).ok) throw new Error('direct login failed');
      },
    },
    {
      key: 'me', title: 'GET /users/me (session lookup)', objectsPerOp: 1, target: { kind: 'none' },
      larder: { method: 'GET', path: () => '/1.1/users/me', headers: () => ({ 'x-lc-session': pick(users).sessionToken }) },
      direct: async (pool) => {
        const res = await pool.query({ name: 'direct_me', text: `SELECT ${USER_COLUMNS} FROM "_User" WHERE data->>'sessionToken' = $1`, values: [pick(users).sessionToken] });
        if (res.rowCount !== 1) throw new Error('session lookup found no user');
      },
    },
  ];
}

/** Sanity checks of the user workloads: the right user comes back, with its token. */
export async function checkUserWorkload(key: string, base: string, users: readonly BenchUser[]): Promise<void> {
  const u = users[0];
  if (!u) throw new Error('no bench users were seeded');
  if (key === 'login') {
    const body = asRecord(await apiCall(base, 'POST', '/1.1/login', { username: u.username, password: u.password }), 'login');
    if (body.objectId !== u.objectId || body.sessionToken !== u.sessionToken) throw new Error(`login answered ${JSON.stringify(body).slice(0, 200)}`);
    return;
  }
  const res = await fetch(`${base}/1.1/users/me`, { headers: { ...AUTH_HEADERS, 'x-lc-session': u.sessionToken }, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  if (res.status !== 200) throw new HttpError('GET', '/1.1/users/me', res.status, text);
  const body = asRecord(JSON.parse(text) as unknown, 'users/me');
  if (body.objectId !== u.objectId || body.sessionToken !== u.sessionToken) throw new Error(`users/me answered ${text.slice(0, 200)}`);
}
