import { nowOf } from '../app-context.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import { createUser } from '../users/create-user.js';
import { sessionTokenOf } from '../users/session-issue.js';
import { findUserBy } from '../users/user-store.js';
import { consumeSmsCode } from './sms-codes.js';
import { bodyOf, codeOf, phoneOf } from './sms-params.js';
async function logInAs(ctx, row) {
    // Same rule as POST /1.1/login (src/users/login.ts).
    if (ctx.app.settings.requireVerifiedEmailToLogin === true && typeof row.data.email === 'string' && row.data.emailVerified !== true) {
        throw new ApiError('emailNotVerified');
    }
    return { row, sessionToken: await sessionTokenOf(ctx.app.db, row), created: false };
}
/** Signs up or logs in by mobile phone number and SMS code. */
export async function signUpOrLogInWithPhone(ctx, rawBody) {
    const body = bodyOf(rawBody);
    const phone = phoneOf(body);
    const code = codeOf(body.smsCode);
    const { db } = ctx.app;
    if (!(await consumeSmsCode(db, phone, code, nowOf(ctx.app))))
        throw new ApiError('invalidSmsCode');
    const existing = await findUserBy(db, 'mobilePhoneNumber', phone);
    if (existing)
        return logInAs(ctx, existing);
    const fields = { ...body, mobilePhoneNumber: phone };
    delete fields.smsCode;
    if (fields.username === undefined || fields.username === null || fields.username === '')
        fields.username = phone;
    try {
        const created = await createUser(ctx, fields, { serverFields: { mobilePhoneVerified: true } });
        return { ...created, created: true };
    }
    catch (err) {
        if (isApiError(err) && err.errorName === 'mobilePhoneTaken') {
            const winner = await findUserBy(db, 'mobilePhoneNumber', phone);
            if (winner)
                return logInAs(ctx, winner);
        }
        throw err;
    }
}
//# sourceMappingURL=phone-sign-up.js.map