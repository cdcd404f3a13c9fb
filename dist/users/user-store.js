/**
 * Reads of `_User` rows by the keys the user endpoints look up: objectId, and the uniquely
 * indexed username, email, mobilePhoneNumber and sessionToken. Field names are SQL literals
 * (`data->>'username'`) so that the statements use the expression indexes of migration 3;
 * values are always bound parameters and always strings (callers reject anything else first).
 */
import { ident, jsonKey, sql } from '../sql/fragment.js';
import { OBJECT_COLUMNS } from '../objects/object-row.js';
/** The `_User` table. */
export const USER_TABLE = ident('_User');
/** The user whose unique field `key` equals `value`, if any. */
export async function findUserBy(q, key, value) {
    const rows = await q.query(sql `SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE data->>${jsonKey(key)} = ${value}`);
    return rows[0];
}
/** The user with this objectId; `lock` takes the row lock for a read-modify-write. */
export async function findUserById(q, objectId, lock = false) {
    const rows = await q.query(lock
        ? sql `SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE "objectId" = ${objectId} FOR UPDATE`
        : sql `SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE "objectId" = ${objectId}`);
    return rows[0];
}
/** The user of a session token (the token itself was checked to be a plausible string). */
export function findUserBySession(q, token) {
    return findUserBy(q, 'sessionToken', token);
}
/** The stored session token of a row, if it has one. */
export function storedToken(row) {
    const t = row.data.sessionToken;
    return typeof t === 'string' && t !== '' ? t : undefined;
}
//# sourceMappingURL=user-store.js.map