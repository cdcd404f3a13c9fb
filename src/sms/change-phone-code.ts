/**
 * Codes of the phone-number change (requestChangePhoneNumber / changePhoneNumber): ordinary SMS
 * codes (sms-codes.ts: hashed, TTL, 601 limits of the number they go to) whose stored purpose
 * also names the user who asked, `changePhone:<userId>`. A change code therefore works only for
 * that user and only with the number it was sent to; a code of any other flow never changes a
 * number. The code-only lookup (consumeSmsCodeWithoutPhone) matches exact purposes and never
 * sees these rows.
 */
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import { hashSmsCode, SMS_MAX_FAILURES } from './sms-codes.ts';

/** The stored purpose of a change code asked for by `userId`. */
export function changePhonePurpose(userId: string): `changePhone:${string}` {
  return `changePhone:${userId}`;
}

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Consumes a change code that `userId` asked for `phone`: true exactly once per code, also when
 * the same code arrives twice at once (the conditional UPDATE lets one of them claim the row).
 * Anything else counts as a wrong guess against the number's outstanding codes, so that after
 * SMS_MAX_FAILURES of them the code stops working, as with every other code.
 */
export async function consumeChangePhoneCode(db: Queryable, userId: string, phone: string, code: string, now: Date): Promise<boolean> {
  const claimed = /^[0-9]{6}$/.test(code)
    ? await db.query(sql`UPDATE _larder_sms_codes SET used_at = ${ts(now)}
        WHERE phone = ${phone} AND code_hash = ${hashSmsCode(code)} AND purpose = ${changePhonePurpose(userId)}
          AND used_at IS NULL AND expires_at > ${ts(now)} AND failures < ${SMS_MAX_FAILURES}
        RETURNING id`)
    : [];
  if (claimed.length) {
    // The number is proven: its other outstanding codes (of this or any flow) are retired.
    await db.query(sql`UPDATE _larder_sms_codes SET used_at = ${ts(now)} WHERE phone = ${phone} AND used_at IS NULL`);
    return true;
  }
  await db.query(sql`UPDATE _larder_sms_codes SET failures = failures + 1
    WHERE phone = ${phone} AND used_at IS NULL AND expires_at > ${ts(now)}`);
  return false;
}
