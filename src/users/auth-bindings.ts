/**
 * `_larder_auth_bindings(platform, uid, user_id)`: which user a platform account belongs to.
 * Its primary key is what makes "one platform account binds to at most one user" true under
 * concurrency: bindings are written in the same transaction as the user row, so a sign-up that
 * loses a race rolls back whole.
 */
import { ApiError } from '../errors/api-error.ts';
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';

/** One platform account: the authData key and the account's uid there. */
export interface Binding {
  readonly platform: string;
  readonly uid: string;
}

function columns(pairs: readonly Binding[]): { platforms: string[]; uids: string[] } {
  return { platforms: pairs.map((p) => p.platform), uids: pairs.map((p) => p.uid) };
}

/** The owners of the given platform accounts, as `platform\u0000uid` -> user objectId. */
export async function bindingOwners(q: Queryable, pairs: readonly Binding[]): Promise<Map<string, string>> {
  if (!pairs.length) return new Map();
  const { platforms, uids } = columns(pairs);
  const rows = await q.query<{ platform: string; uid: string; user_id: string }>(sql`
    SELECT b.platform, b.uid, b.user_id FROM _larder_auth_bindings b
      JOIN unnest(${platforms}::text[], ${uids}::text[]) AS want(platform, uid)
        ON b.platform = want.platform AND b.uid = want.uid`);
  return new Map(rows.map((r) => [bindingKey(r), r.user_id]));
}

/** The map key of a binding. */
export function bindingKey(b: Binding): string {
  return `${b.platform}\u0000${b.uid}`;
}

/**
 * Binds platform accounts to a user. An account already bound to this user stays as it is; one
 * bound to another user is 208 (the caller's transaction then rolls back). Waits on concurrent
 * uncommitted bindings of the same account, so the outcome is decided by the primary key.
 */
export async function bindAccounts(tx: Queryable, userId: string, pairs: readonly Binding[]): Promise<void> {
  if (!pairs.length) return;
  const { platforms, uids } = columns(pairs);
  // DO UPDATE (a no-op write) rather than DO NOTHING so that every row comes back with its owner.
  const rows = await tx.query<{ platform: string; user_id: string }>(sql`
    INSERT INTO _larder_auth_bindings (platform, uid, user_id)
      SELECT platform, uid, ${userId} FROM unnest(${platforms}::text[], ${uids}::text[]) AS want(platform, uid)
    ON CONFLICT (platform, uid) DO UPDATE SET user_id = _larder_auth_bindings.user_id
    RETURNING platform, user_id`);
  const taken = rows.find((r) => r.user_id !== userId);
  if (taken) throw new ApiError('authDataTaken', `An existing account already linked to another user (authData.${taken.platform}).`);
}

/** Removes a user's bindings of the given platforms (unlink), or of all platforms. */
export async function unbindAccounts(tx: Queryable, userId: string, platforms?: readonly string[]): Promise<void> {
  if (platforms === undefined) {
    await tx.query(sql`DELETE FROM _larder_auth_bindings WHERE user_id = ${userId}`);
  } else if (platforms.length) {
    await tx.query(sql`DELETE FROM _larder_auth_bindings WHERE user_id = ${userId} AND platform = ANY(${[...platforms]}::text[])`);
  }
}
