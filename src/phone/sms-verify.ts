/**
 * The endpoints that use a code (leancloud-behaviour §2.4): verifySmsCode, verifyMobilePhone and
 * resetPasswordBySmsCode. Each consumes the code and does its write in one transaction, so a
 * code works once even when sent twice at the same moment. A wrong, expired or used code is 603.
 *
 * The JS SDK sends verifyMobilePhone and resetPasswordBySmsCode without the number; the code
 * alone is then looked up among the codes of that flow (sms-codes.ts), under the app-wide guard
 * of code-guard.ts. verifyMobilePhone with a session uses the session user's number.
 */
import type { AppContext, RequestContext } from '../app-context.ts';
import { runOnVerified } from '../cloud/user-hooks.ts';
import { nowOf } from '../app-context.ts';
import { invalidateSessions } from '../auth/cache-invalidation.ts';
import { ApiError } from '../errors/api-error.ts';
import { replacePassword } from '../account-mail/new-password.ts';
import { UserRowChanges } from '../users/user-row-changes.ts';
import { toIso } from '../objects/timestamps.ts';
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import { hashPassword } from '../users/password.ts';
import { checkPassword } from '../users/user-fields.ts';
import { findUserById, USER_TABLE } from '../users/user-store.ts';
import { codeOnlyLocked, recordCodeOnlyFailure } from './code-guard.ts';
import { consumeSmsCode, consumeSmsCodeWithoutPhone } from '../sms/sms-codes.ts';
import { bodyOf, codeOf, optionalPhoneOf } from './sms-params.ts';
import type { SmsPurpose } from '../sms/sms-sender.ts';

/** A consumed code's number, or why there is none. */
type Claim = { phone: string } | { error: ApiError };

const WRONG = () => new ApiError('invalidSmsCode');

/** Consumes `code` for `phone`, or (no number) among the outstanding codes of `purposes`. */
async function claim(tx: Queryable, code: string, phone: string | undefined, purposes: readonly SmsPurpose[], now: Date): Promise<Claim> {
  if (phone !== undefined) return (await consumeSmsCode(tx, phone, code, now)) ? { phone } : { error: WRONG() };
  if (await codeOnlyLocked(tx, now)) {
    return { error: new ApiError('invalidSmsCode', 'Invalid SMS code: too many wrong codes without mobilePhoneNumber; send mobilePhoneNumber with the code.') };
  }
  const found = await consumeSmsCodeWithoutPhone(tx, code, purposes, now);
  if (found) return { phone: found };
  await recordCodeOnlyFailure(tx, now);
  return { error: WRONG() };
}

/** POST /1.1/verifySmsCode/<code> {mobilePhoneNumber?}: checks (and uses up) a requestSmsCode code. */
export async function verifySmsCode(app: AppContext, rawCode: unknown, rawBody: unknown): Promise<Record<string, never>> {
  const code = codeOf(rawCode);
  const phone = optionalPhoneOf(bodyOf(rawBody));
  const result = await app.db.transaction((tx) => claim(tx, code, phone, ['sms'], nowOf(app)));
  if ('error' in result) throw result.error;
  return {};
}

async function sessionPhone(ctx: RequestContext): Promise<string | undefined> {
  const { userId } = await ctx.principal();
  if (!userId) return undefined;
  const row = await findUserById(ctx.app.db, userId);
  const phone = row?.data.mobilePhoneNumber;
  return typeof phone === 'string' && phone !== '' ? phone : undefined;
}

/** POST /1.1/verifyMobilePhone/<code> {mobilePhoneNumber?}: sets mobilePhoneVerified; {updatedAt, objectId}. */
export async function verifyMobilePhone(ctx: RequestContext, rawCode: unknown, rawBody: unknown): Promise<{ updatedAt: string; objectId: string }> {
  const code = codeOf(rawCode);
  const phone = optionalPhoneOf(bodyOf(rawBody)) ?? (await sessionPhone(ctx));
  const now = nowOf(ctx.app);
  const changes = new UserRowChanges(ctx.app);
  const result = await ctx.app.db.transaction(async (tx) => {
    const c = await claim(tx, code, phone, ['verify'], now);
    if ('error' in c) return c;
    const rows = await changes.update(tx, sql`data = data || '{"mobilePhoneVerified": true}'::jsonb, "updatedAt" = ${now.toISOString()}::timestamptz`,
      sql`data->>'mobilePhoneNumber' = ${c.phone}`, ['mobilePhoneVerified']);
    return rows[0] ? { objectId: rows[0].objectId, updatedAt: toIso(rows[0].updatedAt) } : { error: new ApiError('mobilePhoneNotFound') };
  });
  if ('error' in result) throw result.error;
  changes.dispatch();
  runOnVerified(ctx.app, 'sms', result.objectId);
  return result;
}

/**
 * PUT /1.1/resetPasswordBySmsCode/<code> {password, mobilePhoneNumber?}: stores the new password,
 * rotates the session token and clears the login lock; `{}`.
 */
export async function resetPasswordBySmsCode(app: AppContext, rawCode: unknown, rawBody: unknown): Promise<Record<string, never>> {
  const code = codeOf(rawCode);
  const body = bodyOf(rawBody);
  const password = checkPassword(body.password === undefined ? null : body.password, 'create');
  const phone = optionalPhoneOf(body);
  const hashed = await hashPassword(password);
  const now = nowOf(app);
  const changes = new UserRowChanges(app);
  const result = await app.db.transaction(async (tx): Promise<{ userId: string } | { error: ApiError }> => {
    const c = await claim(tx, code, phone, ['reset'], now);
    if ('error' in c) return c;
    const rows = await tx.query<{ objectId: string }>(sql`SELECT "objectId" FROM ${USER_TABLE}
      WHERE data->>'mobilePhoneNumber' = ${c.phone} FOR UPDATE`);
    if (!rows[0] || !(await replacePassword(tx, changes, { userId: rows[0].objectId }, hashed, now))) return { error: new ApiError('mobilePhoneNotFound') };
    return { userId: rows[0].objectId };
  });
  if ('error' in result) throw result.error;
  await invalidateSessions(app, result.userId);
  changes.dispatch();
  return {};
}
