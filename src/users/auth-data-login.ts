/**
 * Log in or sign up with authData (POST /1.1/users with `authData` and no password,
 * leancloud-behaviour §4.3):
 *   1. a user bound to one of the given platform accounts -> that user (200);
 *   2. else a user holding the unionid of an entry (`_<platform>_unionid`) -> that user, and the
 *      new platform is merged into its authData (200);
 *   3. else `failOnNotExist` -> 211 and nothing written; otherwise a new user with a random
 *      username (201).
 * An existing user's authData entries are re-saved (updatedAt moves, as on the real server); an
 * entry with `main_account: true` claims its unionid for the user if nobody holds it yet.
 * Concurrent first logins with one platform account race on the binding's primary key: one
 * creates the user, the others roll back whole and retry as logins, so one account makes one user.
 */
import type { RequestContext } from '../app-context.ts';
import { runOnAuthData } from './auth-data-hook.ts';
import { ApiError, isApiError } from '../errors/api-error.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import { sql } from '../sql/fragment.ts';
import { unionKey, type AuthEntry } from './auth-data.ts';
import { bindAccounts, bindingKey, bindingOwners, unbindAccounts, type Binding } from './auth-bindings.ts';
import { mergeAuthData } from './auth-data-merge.ts';
import { verifyAuthData } from './auth-data-verifier.ts';
import { createUser } from './create-user.ts';
import { completeLogin } from './complete-login.ts';
import { mappingUniqueViolations } from './unique-violation.ts';
import { splitUserBody } from './user-fields.ts';
import { findUserById } from './user-store.ts';
import { UserRowChanges } from './user-row-changes.ts';

/** The outcome: the user, its token, and whether it was created (201) or found (200). */
export interface AuthDataLogin {
  readonly row: ObjectRow;
  readonly sessionToken: string;
  readonly created: boolean;
}

function unionBinding(e: AuthEntry): Binding | undefined {
  return e.union ? { platform: unionKey(e.union.platform), uid: e.union.unionid } : undefined;
}

/** The one user the entries point at (by platform account, then by unionid), if any. */
async function findOwner(ctx: RequestContext, entries: readonly AuthEntry[]): Promise<string | undefined> {
  const direct = await bindingOwners(ctx.app.db, entries.map((e) => ({ platform: e.platform, uid: e.uid })));
  const owners = new Set(direct.values());
  if (owners.size > 1) throw new ApiError('authDataTaken', 'The given authData accounts are linked to different users.');
  if (owners.size === 1) return [...owners][0];
  const unions = entries.map(unionBinding).filter((b): b is Binding => b !== undefined);
  const byUnion = await bindingOwners(ctx.app.db, unions);
  const unionOwners = new Set(byUnion.values());
  if (unionOwners.size > 1) throw new ApiError('authDataTaken', 'The given unionids are linked to different users.');
  return [...unionOwners][0];
}

/** Entries whose unionid a login or link claims: main_account, and the unionid is nobody's yet. */
export async function claimable(ctx: RequestContext, entries: readonly AuthEntry[], userId?: string): Promise<AuthEntry[]> {
  const wanted = entries.filter((e) => e.union?.main);
  if (!wanted.length) return [];
  const owners = await bindingOwners(ctx.app.db, wanted.map((e) => unionBinding(e) as Binding));
  return wanted.filter((e) => {
    const owner = owners.get(bindingKey(unionBinding(e) as Binding));
    return owner === undefined || owner === userId;
  });
}

/** Re-saves the entries on an existing user (merge per platform) and returns its row. */
async function logInto(ctx: RequestContext, userId: string, entries: readonly AuthEntry[]): Promise<ObjectRow> {
  const claim = await claimable(ctx, entries, userId);
  const now = new Date().toISOString();
  const changes = new UserRowChanges(ctx.app);
  const updated = await mappingUniqueViolations(() =>
    ctx.app.db.transaction(async (tx) => {
      const row = await findUserById(tx, userId, true);
      if (!row) throw new ApiError('userNotFound');
      const merged = mergeAuthData(row.data.authData, { link: entries, unlink: [], claim, gainsPassword: false });
      await unbindAccounts(tx, userId, merged.unbind);
      await bindAccounts(tx, userId, merged.bind);
      const rows = await changes.update(tx, sql`data = data || jsonb_build_object('authData', ${JSON.stringify(merged.doc)}::jsonb), "updatedAt" = ${now}::timestamptz`,
        sql`"objectId" = ${userId}`, ['authData']);
      return { ...row, updatedAt: rows[0].updatedAt, data: rows[0].data };
    }),
  );
  changes.dispatch();
  return updated;
}

/** The body with its authData replaced by what the engine's onAuthData answered (if it has one). */
async function withHookedAuthData(ctx: RequestContext, body: unknown): Promise<unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('authData' in body)) return body;
  const authData = await runOnAuthData(ctx, (body as Record<string, unknown>).authData);
  return { ...body, authData };
}

/** Logs in with, or signs up with, the authData of a POST /1.1/users body. */
export async function loginWithAuthData(ctx: RequestContext, rawBody: unknown, opts: { failOnNotExist: boolean }): Promise<AuthDataLogin> {
  const body = await withHookedAuthData(ctx, rawBody);
  const entries = splitUserBody(body, { mode: 'create', master: ctx.master }).authData ?? [];
  if (!entries.length) throw new ApiError('linkedIdMissing');
  await verifyAuthData(ctx.app, entries);
  for (let attempt = 0; ; attempt++) {
    const owner = await findOwner(ctx, entries);
    if (owner) {
      const row = await logInto(ctx, owner, entries);
      return { row, sessionToken: await completeLogin(ctx, row), created: false };
    }
    if (opts.failOnNotExist) throw new ApiError('userNotFound');
    try {
      const created = await createUser(ctx, body, { generateUsername: true, claimUnions: await claimable(ctx, entries) });
      return { ...created, created: true };
    } catch (err) {
      // Lost the race for a platform account to a concurrent first login: log in instead.
      if (attempt === 0 && isApiError(err) && err.errorName === 'authDataTaken') continue;
      throw err;
    }
  }
}
