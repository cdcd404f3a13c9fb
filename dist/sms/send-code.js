import { nowOf } from '../app-context.js';
import { ApiError } from '../errors/api-error.js';
import { issueSmsCode, SMS_TTL_DEFAULT_MINUTES, withdrawSmsCode } from './sms-codes.js';
/** The app's sender, or 503 when none is configured. */
export function senderOf(app) {
    if (!app.smsSender)
        throw new ApiError('smsNotConfigured', 'Sending SMS is not configured on this server (LARDER_SMS_SENDER).');
    return app.smsSender;
}
/** Defaults of the endpoints that take no options. */
export const PLAIN_REQUEST = { ttlMinutes: SMS_TTL_DEFAULT_MINUTES, type: 'sms', variables: {} };
/**
 * Issues a code for `phone` and sends it when `deliver`; otherwise the code is recorded for the
 * limits only and can never be used. 601 over the limits; 602 when the sender fails (the code is
 * then forgotten and does not count). `storedAs` binds the stored code more narrowly than the
 * purpose the sender is told (a change code names its user).
 */
export async function sendCode(app, phone, purpose, opts, deliver, storedAs = purpose) {
    const sender = senderOf(app);
    const issued = await issueSmsCode(app.db, phone, storedAs, opts.ttlMinutes, nowOf(app), deliver);
    if (!deliver)
        return;
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
    }
    catch {
        await withdrawSmsCode(app.db, issued.id);
        throw new ApiError('smsSendFailed');
    }
}
//# sourceMappingURL=send-code.js.map