import { ApiError } from '../errors/api-error.js';
import { isPlainObject } from '../objects/decode-value.js';
import { sql } from '../sql/fragment.js';
import { consumeSmsCode } from '../sms/sms-codes.js';
import { clearFailures, reserveAttempt } from './login-lock.js';
import { MAX_PASSWORD_LENGTH, verifyPassword } from './password.js';
import { sessionTokenOf } from './session-issue.js';
import { findUserBy, USER_TABLE } from './user-store.js';
/** Longest identity value looked up (usernames, emails and numbers are far shorter). */
const MAX_IDENTITY_LENGTH = 512;
function identityOf(body) {
    for (const key of ['username', 'email', 'mobilePhoneNumber']) {
        const v = body[key];
        if (v === undefined || v === null || v === '')
            continue;
        // Never a lookup with anything but a string: `{"$ne": ""}` and friends end here.
        if (typeof v !== 'string' || v.length > MAX_IDENTITY_LENGTH)
            throw new ApiError('badRequest', `'${key}' must be a string.`);
        return { key, value: v };
    }
    throw new ApiError('usernameMissing', 'Username, email or mobilePhoneNumber is missing or empty.');
}
function secretOf(body, key) {
    const v = body[key];
    if (v === undefined || v === null || v === '')
        return undefined;
    if (typeof v !== 'string' || v.length > MAX_PASSWORD_LENGTH)
        throw new ApiError('badRequest', `'${key}' must be a string.`);
    return v;
}
async function checkPassword(ctx, row, password, now) {
    const { db } = ctx.app;
    const verdict = await reserveAttempt(db, row.objectId, now);
    if (verdict === 'locked')
        throw new ApiError('loginLocked');
    const result = await verifyPassword(password, row.data);
    if (!result.ok)
        throw new ApiError(verdict === 'last' ? 'loginLocked' : 'passwordMismatch');
    await clearFailures(db, row.objectId);
    if (result.upgrade) {
        // Only if the hash is still the one verified: a concurrent password change wins.
        await db.query(sql `UPDATE ${USER_TABLE} SET data = (data - 'salt') || jsonb_build_object('password', ${result.upgrade}::text)
      WHERE "objectId" = ${row.objectId} AND data->>'password' = ${String(row.data.password)}`);
    }
}
/**
 * Logs a user in. `now` is the clock of the login lock (injectable for tests). With the app
 * option "verified email required to log in" on, a user whose email is not verified gets 216.
 */
export async function logIn(ctx, body, now = new Date()) {
    if (!isPlainObject(body))
        throw new ApiError('invalidJson');
    const smsCode = secretOf(body, 'smsCode');
    const password = smsCode === undefined ? secretOf(body, 'password') : undefined;
    const id = identityOf(body);
    if (smsCode !== undefined && id.key !== 'mobilePhoneNumber') {
        throw new ApiError('badRequest', 'smsCode logins need mobilePhoneNumber.');
    }
    if (smsCode === undefined && password === undefined)
        throw new ApiError('passwordMissing');
    const row = await findUserBy(ctx.app.db, id.key, id.value);
    if (!row)
        throw new ApiError('userNotFound');
    if (smsCode !== undefined) {
        if (!(await consumeSmsCode(ctx.app.db, id.value, smsCode)))
            throw new ApiError('invalidSmsCode');
    }
    else {
        await checkPassword(ctx, row, password, now);
    }
    if (ctx.app.settings.requireVerifiedEmailToLogin === true && typeof row.data.email === 'string' && row.data.emailVerified !== true) {
        throw new ApiError('emailNotVerified');
    }
    return { row, sessionToken: await sessionTokenOf(ctx.app.db, row) };
}
//# sourceMappingURL=login.js.map