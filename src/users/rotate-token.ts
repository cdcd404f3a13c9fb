/**
 * The two writes that replace a user's session token (leancloud-behaviour §2.4):
 * PUT /1.1/users/<id>/refreshSessionToken and PUT /1.1/users/<id>/updatePassword. The new token
 * overwrites the old one in the row, so the old token matches no user from the commit on, and
 * the user's cached principals are dropped in every process right after.
 */
import type { RequestContext } from '../app-context.ts';
import { invalidateSessions } from '../auth/cache-invalidation.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import { sql } from '../sql/fragment.ts';
import { clearFailures, lockKey, lockPolicyOf, reserveAttempt } from './login-lock.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from './password.ts';
import { newSessionToken } from './session-token.ts';
import { assertOwnUserOrMaster } from './user-access.ts';
import { checkPassword } from './user-fields.ts';
import { findUserById } from './user-store.ts';
import { UserRowChanges } from './user-row-changes.ts';

/** A user with its new token. */
export interface Rotated {
  readonly row: ObjectRow;
  readonly sessionToken: string;
}

/** Gives the user a new session token (own session or master key); unknown user 211. */
export async function refreshSessionToken(ctx: RequestContext, objectId: string): Promise<Rotated> {
  await assertOwnUserOrMaster(ctx, objectId);
  const token = newSessionToken();
  const changes = new UserRowChanges(ctx.app);
  const rows = await changes.update(ctx.app.db,
    sql`data = data || jsonb_build_object('sessionToken', ${token}::text), "updatedAt" = ${new Date().toISOString()}::timestamptz`,
    sql`"objectId" = ${objectId}`, ['sessionToken']);
  if (!rows[0]) throw new ApiError('userNotFound');
  await invalidateSessions(ctx.app, objectId);
  changes.dispatch();
  return { row: rows[0], sessionToken: token };
}

function passwordField(body: Record<string, unknown>, key: string): unknown {
  const v = body[key];
  if (v !== undefined && v !== null && typeof v !== 'string') throw new ApiError('badRequest', `'${key}' must be a string.`);
  return v;
}

/**
 * Changes the password after checking the old one (210 when wrong; wrong guesses count towards
 * the login lock, 219, so a stolen session cannot try passwords without limit), and rotates the
 * token. Own session or master key.
 */
export async function updatePassword(ctx: RequestContext, objectId: string, body: unknown, now: Date = new Date()): Promise<Rotated> {
  await assertOwnUserOrMaster(ctx, objectId);
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  const oldPassword = passwordField(body, 'old_password');
  const newPassword = checkPassword(passwordField(body, 'new_password'));
  if (typeof oldPassword !== 'string' || oldPassword === '' || oldPassword.length > MAX_PASSWORD_LENGTH) throw new ApiError('passwordMismatch');
  const { db } = ctx.app;
  const row = await findUserById(db, objectId);
  if (!row) throw new ApiError('userNotFound');
  // Its own counter decides: a login locked by someone guessing the password does not stop the
  // signed-in owner. Each guess also counts towards the login lock, so a stolen session adds no
  // guesses at the login (a success clears both).
  const policy = lockPolicyOf(ctx.app.settings);
  const verdict = await reserveAttempt(db, lockKey(objectId, 'passwordChange'), now, policy);
  await reserveAttempt(db, lockKey(objectId, 'login'), now, policy);
  if (verdict === 'locked') throw new ApiError('loginLocked');
  const check = await verifyPassword(oldPassword, row.data);
  if (!check.ok) throw new ApiError(verdict === 'last' ? 'loginLocked' : 'passwordMismatch');
  await clearFailures(db, objectId);
  const hashed = await hashPassword(newPassword);
  const token = newSessionToken();
  // Only over the password that was checked: a concurrent change makes this one a mismatch.
  const changes = new UserRowChanges(ctx.app);
  const rows = await changes.update(db,
    sql`data = (data - 'salt') || jsonb_build_object('password', ${hashed}::text, 'sessionToken', ${token}::text), "updatedAt" = ${now.toISOString()}::timestamptz`,
    sql`"objectId" = ${objectId} AND data->>'password' = ${String(row.data.password)}`, ['password', 'sessionToken']);
  if (!rows[0]) throw new ApiError('passwordMismatch');
  await invalidateSessions(ctx.app, objectId);
  changes.dispatch();
  return { row: rows[0], sessionToken: token };
}
