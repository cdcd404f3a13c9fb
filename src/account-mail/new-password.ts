/**
 * The write behind every password reset (mailed link or SMS code): store the new hash, drop a
 * LeanCloud salt, rotate the session token (LeanCloud: the token changes on a password reset, so a
 * thief's session ends) and clear the login lock (the lock's message tells users to reset their
 * password). Runs inside the transaction that consumed the link or code.
 */
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import { clearFailures } from '../users/login-lock.ts';
import { newSessionToken } from '../users/session-token.ts';
import type { UserRowChanges } from '../users/user-row-changes.ts';

/** Which user gets the password: by id, optionally only while its email is still `email`. */
export interface PasswordTarget {
  readonly userId: string;
  readonly email?: string;
}

/**
 * Replaces the user's password hash and token; false when the user (with that email) is gone.
 * The caller dispatches `changes` once the transaction has committed.
 */
export async function replacePassword(tx: Queryable, changes: UserRowChanges, target: PasswordTarget, hashed: string, now: Date): Promise<boolean> {
  const emailMatches = target.email === undefined ? sql`TRUE` : sql`data->>'email' = ${target.email}`;
  const rows = await changes.update(tx,
    sql`data = (data - 'salt') || jsonb_build_object('password', ${hashed}::text, 'sessionToken', ${newSessionToken()}::text), "updatedAt" = ${now.toISOString()}::timestamptz`,
    sql`"objectId" = ${target.userId} AND ${emailMatches}`, ['password', 'sessionToken']);
  if (!rows.length) return false;
  await clearFailures(tx, target.userId);
  return true;
}
