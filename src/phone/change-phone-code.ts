/**
 * Codes of the phone-number change (requestChangePhoneNumber / changePhoneNumber): ordinary SMS
 * codes (sms-codes.ts: hashed, TTL, 601 limits of the number they go to) whose stored purpose
 * also names the user who asked, `changePhone:<userId>`. A change code therefore works only for
 * that user and only with the number it was sent to; a code of any other flow never changes a
 * number. The code-only lookup (consumeSmsCodeWithoutPhone) matches exact purposes and never
 * sees these rows.
 */
import type { Queryable } from '../storage/database.ts';
import { consumeSmsCode } from '../sms/sms-codes.ts';

/** The stored purpose of a change code asked for by `userId`. */
export function changePhonePurpose(userId: string): `changePhone:${string}` {
  return `changePhone:${userId}`;
}

/**
 * Consumes a change code that `userId` asked for `phone`: true exactly once per code, also when
 * the same code arrives twice at once (the conditional UPDATE lets one of them claim the row).
 * Anything else counts as a wrong guess against the number's outstanding codes, so that after
 * SMS_MAX_FAILURES of them the code stops working, as with every other code.
 */
export function consumeChangePhoneCode(db: Queryable, userId: string, phone: string, code: string, now: Date): Promise<boolean> {
  return consumeSmsCode(db, phone, code, now, changePhonePurpose(userId));
}
