import { nowOf } from '../app-context.js';
import { invalidateSessions } from '../auth/cache-invalidation.js';
import { ApiError } from '../errors/api-error.js';
import { replacePassword } from '../mail/new-password.js';
import { toIso } from '../objects/timestamps.js';
import { sql } from '../sql/fragment.js';
import { hashPassword } from '../users/password.js';
import { checkPassword } from '../users/user-fields.js';
import { findUserById, USER_TABLE } from '../users/user-store.js';
import { codeOnlyLocked, recordCodeOnlyFailure } from './code-guard.js';
import { consumeSmsCode, consumeSmsCodeWithoutPhone } from './sms-codes.js';
import { bodyOf, codeOf, optionalPhoneOf } from './sms-params.js';
const WRONG = () => new ApiError('invalidSmsCode');
/** Consumes `code` for `phone`, or (no number) among the outstanding codes of `purposes`. */
async function claim(tx, code, phone, purposes, now) {
    if (phone !== undefined)
        return (await consumeSmsCode(tx, phone, code, now)) ? { phone } : { error: WRONG() };
    if (await codeOnlyLocked(tx, now)) {
        return { error: new ApiError('invalidSmsCode', 'Invalid SMS code: too many wrong codes without mobilePhoneNumber; send mobilePhoneNumber with the code.') };
    }
    const found = await consumeSmsCodeWithoutPhone(tx, code, purposes, now);
    if (found)
        return { phone: found };
    await recordCodeOnlyFailure(tx, now);
    return { error: WRONG() };
}
/** POST /1.1/verifySmsCode/<code> {mobilePhoneNumber?}: checks (and uses up) a requestSmsCode code. */
export async function verifySmsCode(app, rawCode, rawBody) {
    const code = codeOf(rawCode);
    const phone = optionalPhoneOf(bodyOf(rawBody));
    const result = await app.db.transaction((tx) => claim(tx, code, phone, ['sms'], nowOf(app)));
    if ('error' in result)
        throw result.error;
    return {};
}
async function sessionPhone(ctx) {
    const { userId } = await ctx.principal();
    if (!userId)
        return undefined;
    const row = await findUserById(ctx.app.db, userId);
    const phone = row?.data.mobilePhoneNumber;
    return typeof phone === 'string' && phone !== '' ? phone : undefined;
}
/** POST /1.1/verifyMobilePhone/<code> {mobilePhoneNumber?}: sets mobilePhoneVerified; {updatedAt, objectId}. */
export async function verifyMobilePhone(ctx, rawCode, rawBody) {
    const code = codeOf(rawCode);
    const phone = optionalPhoneOf(bodyOf(rawBody)) ?? (await sessionPhone(ctx));
    const now = nowOf(ctx.app);
    const result = await ctx.app.db.transaction(async (tx) => {
        const c = await claim(tx, code, phone, ['verify'], now);
        if ('error' in c)
            return c;
        const rows = await tx.query(sql `UPDATE ${USER_TABLE}
      SET data = data || '{"mobilePhoneVerified": true}'::jsonb, "updatedAt" = ${now.toISOString()}::timestamptz
      WHERE data->>'mobilePhoneNumber' = ${c.phone} RETURNING "objectId", "updatedAt"`);
        return rows[0] ? { objectId: rows[0].objectId, updatedAt: toIso(rows[0].updatedAt) } : { error: new ApiError('mobilePhoneNotFound') };
    });
    if ('error' in result)
        throw result.error;
    return result;
}
/**
 * PUT /1.1/resetPasswordBySmsCode/<code> {password, mobilePhoneNumber?}: stores the new password,
 * rotates the session token and clears the login lock; `{}`.
 */
export async function resetPasswordBySmsCode(app, rawCode, rawBody) {
    const code = codeOf(rawCode);
    const body = bodyOf(rawBody);
    const password = checkPassword(body.password === undefined ? null : body.password, 'create');
    const phone = optionalPhoneOf(body);
    const hashed = await hashPassword(password);
    const now = nowOf(app);
    const result = await app.db.transaction(async (tx) => {
        const c = await claim(tx, code, phone, ['reset'], now);
        if ('error' in c)
            return c;
        const rows = await tx.query(sql `SELECT "objectId" FROM ${USER_TABLE}
      WHERE data->>'mobilePhoneNumber' = ${c.phone} FOR UPDATE`);
        if (!rows[0] || !(await replacePassword(tx, { userId: rows[0].objectId }, hashed, now)))
            return { error: new ApiError('mobilePhoneNotFound') };
        return { userId: rows[0].objectId };
    });
    if ('error' in result)
        throw result.error;
    await invalidateSessions(app, result.userId);
    return {};
}
//# sourceMappingURL=sms-verify.js.map