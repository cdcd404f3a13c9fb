/**
 * POST /1.1/login: by username, email or mobilePhoneNumber with a password, or by
 * mobilePhoneNumber with an SMS code. Unknown user 211, wrong password 210, locked 219 (see
 * login-lock.ts). The answer is the whole user (no password) with its session token. A password
 * stored in LeanCloud's format is replaced by a scrypt hash on the first successful login.
 */
import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import { sql } from '../sql/fragment.ts';
import { consumeSmsCode } from '../sms/sms-codes.ts';
import { clearFailures, lockKey, lockPolicyOf, reserveAttempt } from './login-lock.ts';
import { MAX_PASSWORD_LENGTH, spendPasswordCheck, verifyPassword } from './password.ts';
import { completeLogin } from './complete-login.ts';
import { findUserBy, USER_TABLE, type UserKey } from './user-store.ts';

/** A logged-in user and its token. */
export interface LoggedIn {
  readonly row: ObjectRow;
  readonly sessionToken: string;
}

/** Longest identity value looked up (usernames, emails and numbers are far shorter). */
const MAX_IDENTITY_LENGTH = 512;

function identityOf(body: Record<string, unknown>): { key: Exclude<UserKey, 'sessionToken'>; value: string } {
  for (const key of ['username', 'email', 'mobilePhoneNumber'] as const) {
    const v = body[key];
    if (v === undefined || v === null || v === '') continue;
    // Never a lookup with anything but a string: `{"$ne": ""}` and friends end here.
    if (typeof v !== 'string' || v.length > MAX_IDENTITY_LENGTH) throw new ApiError('badRequest', `'${key}' must be a string.`);
    return { key, value: v };
  }
  throw new ApiError('usernameMissing', 'Username, email or mobilePhoneNumber is missing or empty.');
}

function secretOf(body: Record<string, unknown>, key: 'password' | 'smsCode'): string | undefined {
  const v = body[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || v.length > MAX_PASSWORD_LENGTH) throw new ApiError('badRequest', `'${key}' must be a string.`);
  return v;
}

async function checkPassword(ctx: RequestContext, row: ObjectRow, password: string, now: Date): Promise<void> {
  const { db } = ctx.app;
  const verdict = await reserveAttempt(db, lockKey(row.objectId, 'login'), now, lockPolicyOf(ctx.app.settings));
  if (verdict === 'locked') throw new ApiError('loginLocked');
  const result = await verifyPassword(password, row.data);
  if (!result.ok) throw new ApiError(verdict === 'last' ? 'loginLocked' : 'passwordMismatch');
  await clearFailures(db, row.objectId);
  if (result.upgrade) {
    // Only if the hash is still the one verified: a concurrent password change wins.
    await db.query(sql`UPDATE ${USER_TABLE} SET data = (data - 'salt') || jsonb_build_object('password', ${result.upgrade}::text)
      WHERE "objectId" = ${row.objectId} AND data->>'password' = ${String(row.data.password)}`);
  }
}

/**
 * Logs a user in. `now` is the clock of the login lock (injectable for tests). With the app
 * option "verified email required to log in" on, a user whose email is not verified gets 216.
 */
export async function logIn(ctx: RequestContext, body: unknown, now: Date = new Date()): Promise<LoggedIn> {
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  const smsCode = secretOf(body, 'smsCode');
  const password = smsCode === undefined ? secretOf(body, 'password') : undefined;
  const id = identityOf(body);
  if (smsCode !== undefined && id.key !== 'mobilePhoneNumber') {
    throw new ApiError('badRequest', 'smsCode logins need mobilePhoneNumber.');
  }
  if (smsCode === undefined && password === undefined) throw new ApiError('passwordMissing');
  const row = await findUserBy(ctx.app.db, id.key, id.value);
  if (!row) {
    // As long as a wrong password takes: the answer's timing must not tell who has an account.
    if (password !== undefined) await spendPasswordCheck(password);
    throw new ApiError('userNotFound');
  }
  if (smsCode !== undefined) {
    if (!(await consumeSmsCode(ctx.app.db, id.value, smsCode))) throw new ApiError('invalidSmsCode');
  } else {
    await checkPassword(ctx, row, password as string, now);
  }
  if (ctx.app.settings.requireVerifiedEmailToLogin === true && typeof row.data.email === 'string' && row.data.emailVerified !== true) {
    throw new ApiError('emailNotVerified');
  }
  return { row, sessionToken: await completeLogin(ctx, row) };
}
