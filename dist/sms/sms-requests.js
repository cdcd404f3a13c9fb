import { findUserBy } from '../users/user-store.js';
import { PLAIN_REQUEST, sendCode, senderOf } from './send-code.js';
import { bodyOf, codeRequestOptions, phoneOf } from './sms-params.js';
/** POST /1.1/requestSmsCode {mobilePhoneNumber, ttl?, smsType?, template?, sign?, ...variables}. */
export async function requestSmsCode(app, rawBody) {
    const body = bodyOf(rawBody);
    const phone = phoneOf(body);
    const opts = codeRequestOptions(body);
    await sendCode(app, phone, 'sms', opts, true);
    return {};
}
/** The three endpoints that send a code to the number of an account. */
async function requestForUser(app, rawBody, purpose) {
    const phone = phoneOf(bodyOf(rawBody));
    senderOf(app);
    const row = await findUserBy(app.db, 'mobilePhoneNumber', phone);
    // requestMobilePhoneVerify: no SMS for a number that is verified already (LeanCloud).
    const deliver = row !== undefined && (purpose !== 'verify' || row.data.mobilePhoneVerified !== true);
    await sendCode(app, phone, purpose, PLAIN_REQUEST, deliver);
    return {};
}
/** POST /1.1/requestLoginSmsCode {mobilePhoneNumber}: a code for POST /1.1/login {mobilePhoneNumber, smsCode}. */
export function requestLoginSmsCode(app, body) {
    return requestForUser(app, body, 'login');
}
/** POST /1.1/requestMobilePhoneVerify {mobilePhoneNumber}: a code for verifyMobilePhone. */
export function requestMobilePhoneVerify(app, body) {
    return requestForUser(app, body, 'verify');
}
/** POST /1.1/requestPasswordResetBySmsCode {mobilePhoneNumber}: a code for resetPasswordBySmsCode. */
export function requestPasswordResetBySmsCode(app, body) {
    return requestForUser(app, body, 'reset');
}
//# sourceMappingURL=sms-requests.js.map