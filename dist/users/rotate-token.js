import { invalidateSessions } from '../auth/cache-invalidation.js';
import { ApiError } from '../errors/api-error.js';
import { isPlainObject } from '../objects/decode-value.js';
import { OBJECT_COLUMNS } from '../objects/object-row.js';
import { sql } from '../sql/fragment.js';
import { clearFailures, reserveAttempt } from './login-lock.js';
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from './password.js';
import { newSessionToken } from './session-token.js';
import { assertOwnUserOrMaster } from './user-access.js';
import { checkPassword } from './user-fields.js';
import { findUserById, USER_TABLE } from './user-store.js';
/** Gives the user a new session token (own session or master key); unknown user 211. */
export async function refreshSessionToken(ctx, objectId) {
    await assertOwnUserOrMaster(ctx, objectId);
    const token = newSessionToken();
    const rows = await ctx.app.db.query(sql `UPDATE ${USER_TABLE}
    SET data = data || jsonb_build_object('sessionToken', ${token}::text), "updatedAt" = ${new Date().toISOString()}::timestamptz
    WHERE "objectId" = ${objectId} RETURNING ${OBJECT_COLUMNS}`);
    if (!rows[0])
        throw new ApiError('userNotFound');
    await invalidateSessions(ctx.app, objectId);
    return { row: rows[0], sessionToken: token };
}
function passwordField(body, key) {
    const v = body[key];
    if (v !== undefined && v !== null && typeof v !== 'string')
        throw new ApiError('badRequest', `'${key}' must be a string.`);
    return v;
}
/**
 * Changes the password after checking the old one (210 when wrong; wrong guesses count towards
 * the login lock, 219, so a stolen session cannot try passwords without limit), and rotates the
 * token. Own session or master key.
 */
export async function updatePassword(ctx, objectId, body, now = new Date()) {
    await assertOwnUserOrMaster(ctx, objectId);
    if (!isPlainObject(body))
        throw new ApiError('invalidJson');
    const oldPassword = passwordField(body, 'old_password');
    const newPassword = checkPassword(passwordField(body, 'new_password'));
    if (typeof oldPassword !== 'string' || oldPassword === '' || oldPassword.length > MAX_PASSWORD_LENGTH)
        throw new ApiError('passwordMismatch');
    const { db } = ctx.app;
    const row = await findUserById(db, objectId);
    if (!row)
        throw new ApiError('userNotFound');
    const verdict = await reserveAttempt(db, objectId, now);
    if (verdict === 'locked')
        throw new ApiError('loginLocked');
    const check = await verifyPassword(oldPassword, row.data);
    if (!check.ok)
        throw new ApiError(verdict === 'last' ? 'loginLocked' : 'passwordMismatch');
    await clearFailures(db, objectId);
    const hashed = await hashPassword(newPassword);
    const token = newSessionToken();
    // Only over the password that was checked: a concurrent change makes this one a mismatch.
    const rows = await db.query(sql `UPDATE ${USER_TABLE}
    SET data = (data - 'salt') || jsonb_build_object('password', ${hashed}::text, 'sessionToken', ${token}::text),
        "updatedAt" = ${now.toISOString()}::timestamptz
    WHERE "objectId" = ${objectId} AND data->>'password' = ${String(row.data.password)} RETURNING ${OBJECT_COLUMNS}`);
    if (!rows[0])
        throw new ApiError('passwordMismatch');
    await invalidateSessions(ctx.app, objectId);
    return { row: rows[0], sessionToken: token };
}
//# sourceMappingURL=rotate-token.js.map