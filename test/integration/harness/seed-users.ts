import { randomBytes } from 'node:crypto';
import { sql } from '../../../src/sql/fragment.ts';
import type { Harness } from './engines.ts';

/** A user made for a test, with a valid session token. */
export interface SeededUser {
  objectId: string;
  sessionToken: string;
  username: string;
  pointer: { __type: 'Pointer'; className: '_User'; objectId: string };
}

/**
 * Stores a user with a session token straight into `_User`, as sign-up would leave it, so that
 * role and ACL tests do not depend on the sign-up endpoint. Readable by everyone, writable by
 * itself (the usual user ACL).
 */
export async function seedUser(h: Harness, username = `u${randomBytes(5).toString('hex')}`): Promise<SeededUser> {
  const objectId = randomBytes(12).toString('hex');
  const sessionToken = randomBytes(16).toString('hex').slice(0, 25);
  const acl = { '*': { read: true }, [objectId]: { read: true, write: true } };
  await h.db.query(sql`INSERT INTO "_User" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
    VALUES (${objectId}, now(), now(), ${JSON.stringify(acl)}::jsonb, ${['*', objectId]}::text[], ${[objectId]}::text[],
      ${JSON.stringify({ username, sessionToken })}::jsonb)`);
  return { objectId, sessionToken, username, pointer: { __type: 'Pointer', className: '_User', objectId } };
}

/** Several users at once. */
export async function seedUsers(h: Harness, n: number): Promise<SeededUser[]> {
  const out: SeededUser[] = [];
  for (let i = 0; i < n; i++) out.push(await seedUser(h));
  return out;
}

/** A pointer to a role. */
export function rolePointer(objectId: string): { __type: 'Pointer'; className: '_Role'; objectId: string } {
  return { __type: 'Pointer', className: '_Role', objectId };
}
