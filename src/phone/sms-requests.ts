/**
 * The endpoints that send a code (leancloud-behaviour §2.4), each answering `{}`:
 * - requestSmsCode: any number (sign-up by phone, confirming an operation); ttl, smsType,
 *   template, sign and template variables are passed to the sender;
 * - requestLoginSmsCode, requestPasswordResetBySmsCode: numbers of existing users;
 * - requestMobilePhoneVerify: numbers of users whose number is not verified yet.
 * For a number that does not qualify the last three send nothing but answer (and count towards
 * the limits) as if they had, so they cannot be used to find out which numbers have accounts.
 */
import type { AppContext } from '../app-context.ts';
import { findUserBy } from '../users/user-store.ts';
import { PLAIN_REQUEST, sendCode, senderOf } from './send-code.ts';
import { bodyOf, codeRequestOptions, phoneOf } from './sms-params.ts';
import type { SmsPurpose } from '../sms/sms-sender.ts';

/** POST /1.1/requestSmsCode {mobilePhoneNumber, ttl?, smsType?, template?, sign?, ...variables}. */
export async function requestSmsCode(app: AppContext, rawBody: unknown): Promise<Record<string, never>> {
  const body = bodyOf(rawBody);
  const phone = phoneOf(body);
  const opts = codeRequestOptions(body);
  await sendCode(app, phone, 'sms', opts, true);
  return {};
}

/** The three endpoints that send a code to the number of an account. */
async function requestForUser(app: AppContext, rawBody: unknown, purpose: Exclude<SmsPurpose, 'sms'>): Promise<Record<string, never>> {
  const phone = phoneOf(bodyOf(rawBody));
  senderOf(app);
  const row = await findUserBy(app.db, 'mobilePhoneNumber', phone);
  // requestMobilePhoneVerify: no SMS for a number that is verified already (LeanCloud).
  const deliver = row !== undefined && (purpose !== 'verify' || row.data.mobilePhoneVerified !== true);
  await sendCode(app, phone, purpose, PLAIN_REQUEST, deliver);
  return {};
}

/** POST /1.1/requestLoginSmsCode {mobilePhoneNumber}: a code for POST /1.1/login {mobilePhoneNumber, smsCode}. */
export function requestLoginSmsCode(app: AppContext, body: unknown): Promise<Record<string, never>> {
  return requestForUser(app, body, 'login');
}

/** POST /1.1/requestMobilePhoneVerify {mobilePhoneNumber}: a code for verifyMobilePhone. */
export function requestMobilePhoneVerify(app: AppContext, body: unknown): Promise<Record<string, never>> {
  return requestForUser(app, body, 'verify');
}

/** POST /1.1/requestPasswordResetBySmsCode {mobilePhoneNumber}: a code for resetPasswordBySmsCode. */
export function requestPasswordResetBySmsCode(app: AppContext, body: unknown): Promise<Record<string, never>> {
  return requestForUser(app, body, 'reset');
}
