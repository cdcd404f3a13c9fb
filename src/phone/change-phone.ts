/**
 * Changing the phone number of the logged-in user by SMS (leancloud-behaviour §2.4; JS SDK
 * AV.User.requestChangePhoneNumber / changePhoneNumber, since 4.7.0):
 * - POST /1.1/requestChangePhoneNumber {mobilePhoneNumber, ttl?} (X-LC-Session): sends a code to
 *   the NEW number, valid `ttl` minutes (default 6, 1 to 30); `{}`. A number another user has is
 *   214. The number's 601 limits apply as to every code.
 * - POST /1.1/changePhoneNumber {mobilePhoneNumber, code} (X-LC-Session): with a code that this
 *   user asked for this very number, sets mobilePhoneNumber to it and mobilePhoneVerified true;
 *   `{}`. Any other code (wrong, expired, used, sent to another number, asked for by another user,
 *   or from another flow) is 603. Consuming the code and writing the user are one transaction,
 *   so the same code sent twice at once changes the number once; if the number was taken in the
 *   meantime the unique index answers 214 and the code stays unused.
 * Both need the session of a user (206 otherwise, also with the master key alone: there is no
 * "current user" to change).
 */
import type { RequestContext } from '../app-context.ts';
import { nowOf } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { sql } from '../sql/fragment.ts';
import { mappingUniqueViolations } from '../users/unique-violation.ts';
import { findUserBy } from '../users/user-store.ts';
import { UserRowChanges } from '../users/user-row-changes.ts';
import { changePhonePurpose, consumeChangePhoneCode } from './change-phone-code.ts';
import { sendCode, senderOf } from './send-code.ts';
import { bodyOf, codeOf, codeRequestOptions, phoneOf } from './sms-params.ts';

/** Default validity of a change code, minutes (the JS SDK documents 6). */
export const CHANGE_PHONE_TTL_DEFAULT_MINUTES = 6;

async function sessionUser(ctx: RequestContext, endpoint: string): Promise<string> {
  const { userId } = await ctx.principal();
  if (!userId) throw new ApiError('sessionRequired', `${endpoint} needs the session of a logged-in user (X-LC-Session).`);
  return userId;
}

/** POST /1.1/requestChangePhoneNumber: see the file comment. */
export async function requestChangePhoneNumber(ctx: RequestContext, rawBody: unknown): Promise<Record<string, never>> {
  const userId = await sessionUser(ctx, 'requestChangePhoneNumber');
  const body = bodyOf(rawBody);
  const phone = phoneOf(body);
  // Only `ttl` is an option here; the number's flow has no templates or variables.
  const ttl = body.ttl ?? CHANGE_PHONE_TTL_DEFAULT_MINUTES;
  const opts = codeRequestOptions({ ttl });
  senderOf(ctx.app);
  const holder = await findUserBy(ctx.app.db, 'mobilePhoneNumber', phone);
  if (holder && holder.objectId !== userId) throw new ApiError('mobilePhoneTaken');
  await sendCode(ctx.app, phone, 'changePhone', opts, true, changePhonePurpose(userId));
  return {};
}

/** POST /1.1/changePhoneNumber: see the file comment. */
export async function changePhoneNumber(ctx: RequestContext, rawBody: unknown): Promise<Record<string, never>> {
  const userId = await sessionUser(ctx, 'changePhoneNumber');
  const body = bodyOf(rawBody);
  const phone = phoneOf(body);
  const code = codeOf(body.code);
  const now = nowOf(ctx.app);
  const changes = new UserRowChanges(ctx.app);
  const result = await mappingUniqueViolations(() =>
    ctx.app.db.transaction(async (tx): Promise<{ error?: ApiError }> => {
      // A wrong code returns (the transaction commits its count of wrong guesses), never throws.
      if (!(await consumeChangePhoneCode(tx, userId, phone, code, now))) return { error: new ApiError('invalidSmsCode') };
      const rows = await changes.update(tx,
        sql`data = data || jsonb_build_object('mobilePhoneNumber', ${phone}::text, 'mobilePhoneVerified', true), "updatedAt" = ${now.toISOString()}::timestamptz`,
        sql`"objectId" = ${userId}`, ['mobilePhoneNumber', 'mobilePhoneVerified']);
      if (!rows.length) throw new ApiError('userNotFound');
      return {};
    }),
  );
  if (result.error) throw result.error;
  changes.dispatch();
  return {};
}
