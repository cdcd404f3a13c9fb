/**
 * The write behind every password reset (mailed link or SMS code): store the new hash, drop a
 * LeanCloud salt, rotate the session token (LeanCloud: the token changes on a password reset, so a
 * thief's session ends) and clear the login lock (the lock's message tells users to reset their
 * password). Runs inside the transaction that consumed the link or code.
 */
import { sql } from '../sql/fragment.js';
import { clearFailures } from '../users/login-lock.js';
import { newSessionToken } from '../users/session-token.js';
import { USER_TABLE } from '../users/user-store.js';
/** Replaces the user's password hash and token; false when the user (with that email) is gone. */
export async function replacePassword(tx, target, hashed, now) {
    const emailMatches = target.email === undefined ? sql `TRUE` : sql `data->>'email' = ${target.email}`;
    const rows = await tx.query(sql `UPDATE ${USER_TABLE}
    SET data = (data - 'salt') || jsonb_build_object('password', ${hashed}::text, 'sessionToken', ${newSessionToken()}::text),
        "updatedAt" = ${now.toISOString()}::timestamptz
    WHERE "objectId" = ${target.userId} AND ${emailMatches} RETURNING "objectId"`);
    if (!rows.length)
        return false;
    await clearFailures(tx, target.userId);
    return true;
}
//# sourceMappingURL=new-password.js.map