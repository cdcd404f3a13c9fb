/**
 * Data of the presence benchmark, written straight into PostgreSQL (10,000 sign-ups through the
 * API would spend minutes in scrypt and measure nothing of presence): users with session tokens,
 * and mutual friendships from each "star" user to the same 1,000 friends.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A benchmark user: id and session token. */
export interface BenchUser {
  readonly id: string;
  readonly session: string;
}

/** Deterministic ids and tokens, so the load generator knows them without reading them back. */
export function benchUsers(n: number): BenchUser[] {
  return Array.from({ length: n }, (_, i) => ({ id: `pu${String(i).padStart(8, '0')}`, session: `ps${String(i).padStart(8, '0')}${randomBytes(8).toString('hex')}` }));
}

function pointer(id: string) {
  return { __type: 'Pointer', className: '_User', objectId: id };
}

/** Inserts the users and the friendships (both directions, friendStatus true) in a few statements. */
export async function seedPresenceData(url: string, schema: string, users: readonly BenchUser[], stars: readonly BenchUser[], friends: readonly BenchUser[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    const ids = users.map((u) => u.id);
    const data = users.map((u) => JSON.stringify({ username: u.id, sessionToken: u.session }));
    await client.query(
      `INSERT INTO "_User" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
       SELECT id, now(), now(), jsonb_build_object('*', jsonb_build_object('read', true)), ARRAY['*'], ARRAY[id], d::jsonb
       FROM unnest($1::text[], $2::text[]) AS t(id, d)`,
      [ids, data],
    );
    const rows: { id: string; data: string }[] = [];
    for (const s of stars) {
      for (const f of friends) {
        rows.push({ id: randomBytes(12).toString('hex'), data: JSON.stringify({ user: pointer(s.id), followee: pointer(f.id), friendStatus: true }) });
        rows.push({ id: randomBytes(12).toString('hex'), data: JSON.stringify({ user: pointer(f.id), followee: pointer(s.id), friendStatus: true }) });
      }
    }
    await client.query(
      `INSERT INTO "_Followee" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
       SELECT id, now(), now(), '{"*":{"read":true}}'::jsonb, ARRAY['*'], ARRAY[]::text[], d::jsonb
       FROM unnest($1::text[], $2::text[]) AS t(id, d)`,
      [rows.map((r) => r.id), rows.map((r) => r.data)],
    );
    await client.query('ANALYZE "_User"; ANALYZE "_Followee"');
  } finally {
    await client.end();
  }
}
