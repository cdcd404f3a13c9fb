import { consumeSmsCode } from './sms-codes.js';
/** The stored purpose of a change code asked for by `userId`. */
export function changePhonePurpose(userId) {
    return `changePhone:${userId}`;
}
/**
 * Consumes a change code that `userId` asked for `phone`: true exactly once per code, also when
 * the same code arrives twice at once (the conditional UPDATE lets one of them claim the row).
 * Anything else counts as a wrong guess against the number's outstanding codes, so that after
 * SMS_MAX_FAILURES of them the code stops working, as with every other code.
 */
export function consumeChangePhoneCode(db, userId, phone, code, now) {
    return consumeSmsCode(db, phone, code, now, changePhonePurpose(userId));
}
//# sourceMappingURL=change-phone-code.js.map