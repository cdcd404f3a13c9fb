/**
 * POST /1.1/usersByMobilePhone {mobilePhoneNumber, smsCode, ...fields}: sign up or log in with a
 * number and a code (leancloud-behaviour §2.4). The code is consumed first (603 when wrong), so
 * it works once. A number without an account gets a new user: username = the number unless the
 * body names one, `mobilePhoneVerified` true (the code proved the number), the other fields of
 * the body as in a sign-up, a password only if given. A number with an account logs that user in
 * (the other fields are ignored). Two sign-ups of one new number with two valid codes race on the
 * unique phone index; the loser logs in as the winner's user.
 */
import type { RequestContext } from '../app-context.ts';
import { nowOf } from '../app-context.ts';
import { ApiError, isApiError } from '../errors/api-error.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import { createUser } from '../users/create-user.ts';
import { completeLogin } from '../users/complete-login.ts';
import { findUserBy } from '../users/user-store.ts';
import { consumeSmsCode } from '../sms/sms-codes.ts';
import { bodyOf, codeOf, phoneOf } from './sms-params.ts';

/** The user signed up or logged in, with its token; `created` for a new user. */
export interface PhoneSignUp {
  readonly row: ObjectRow;
  readonly sessionToken: string;
  readonly created: boolean;
}

async function logInAs(ctx: RequestContext, row: ObjectRow): Promise<PhoneSignUp> {
  // Same rule as POST /1.1/login (src/users/login.ts).
  if (ctx.app.settings.requireVerifiedEmailToLogin === true && typeof row.data.email === 'string' && row.data.emailVerified !== true) {
    throw new ApiError('emailNotVerified');
  }
  return { row, sessionToken: await completeLogin(ctx, row), created: false };
}

/** Signs up or logs in by mobile phone number and SMS code. */
export async function signUpOrLogInWithPhone(ctx: RequestContext, rawBody: unknown): Promise<PhoneSignUp> {
  const body = bodyOf(rawBody);
  const phone = phoneOf(body);
  const code = codeOf(body.smsCode);
  const { db } = ctx.app;
  if (!(await consumeSmsCode(db, phone, code, nowOf(ctx.app)))) throw new ApiError('invalidSmsCode');
  const existing = await findUserBy(db, 'mobilePhoneNumber', phone);
  if (existing) return logInAs(ctx, existing);
  const fields: Record<string, unknown> = { ...body, mobilePhoneNumber: phone };
  delete fields.smsCode;
  if (fields.username === undefined || fields.username === null || fields.username === '') fields.username = phone;
  try {
    const created = await createUser(ctx, fields, { serverFields: { mobilePhoneVerified: true } });
    return { ...created, created: true };
  } catch (err) {
    if (isApiError(err) && err.errorName === 'mobilePhoneTaken') {
      const winner = await findUserBy(db, 'mobilePhoneNumber', phone);
      if (winner) return logInAs(ctx, winner);
    }
    throw err;
  }
}
