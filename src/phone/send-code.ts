/**
 * Issuing one code and handing it to the app's sender. The per-number limits (601) apply to
 * every request, also when no message goes out (an unknown number on the login or reset
 * endpoints): the answers then do not differ between numbers with and without an account.
 */
import type { AppContext } from '../app-context.ts';
import { nowOf } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { issueSmsCode, SMS_TTL_DEFAULT_MINUTES, withdrawSmsCode, type StoredPurpose } from '../sms/sms-codes.ts';
import type { CodeRequestOptions } from './sms-params.ts';
import type { SmsPurpose, SmsSender } from '../sms/sms-sender.ts';

/** The app's sender, or 503 when none is configured. */
export function senderOf(app: AppContext): SmsSender {
  if (!app.smsSender) throw new ApiError('smsNotConfigured', 'Sending SMS is not configured on this server (LARDER_SMS_SENDER).');
  return app.smsSender;
}

/** Defaults of the endpoints that take no options. */
export const PLAIN_REQUEST: CodeRequestOptions = { ttlMinutes: SMS_TTL_DEFAULT_MINUTES, type: 'sms', variables: {} };

/**
 * Issues a code for `phone` and sends it when `deliver`; otherwise the code is recorded for the
 * limits only and can never be used. 601 over the limits; 602 when the sender fails (the code is
 * then forgotten and does not count). `storedAs` binds the stored code more narrowly than the
 * purpose the sender is told (a change code names its user).
 */
export async function sendCode(app: AppContext, phone: string, purpose: SmsPurpose, opts: CodeRequestOptions, deliver: boolean, storedAs: StoredPurpose = purpose): Promise<void> {
  const sender = senderOf(app);
  const issued = await issueSmsCode(app.db, phone, storedAs, opts.ttlMinutes, nowOf(app), deliver);
  if (!deliver) return;
  try {
    await sender.send({
      phone,
      code: issued.code,
      ttlMinutes: opts.ttlMinutes,
      purpose,
      type: opts.type,
      template: opts.template,
      sign: opts.sign,
      variables: opts.variables,
    });
  } catch {
    await withdrawSmsCode(app.db, issued.id);
    throw new ApiError('smsSendFailed');
  }
}
