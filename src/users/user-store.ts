/**
 * Reads of `_User` rows by the keys the user endpoints look up: objectId, and the uniquely
 * indexed username, email, mobilePhoneNumber and sessionToken. Field names are SQL literals
 * (`data->>'username'`) so that the statements use the expression indexes of migration 3;
 * values are always bound parameters and always strings (callers reject anything else first).
 */
import { ident, jsonKey, sql, type Sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';

/** The `_User` table. */
export const USER_TABLE: Sql = ident('_User');

/** Uniquely indexed user fields a user can be found by. */
export type UserKey = 'username' | 'email' | 'mobilePhoneNumber' | 'sessionToken';

/** The user whose unique field `key` equals `value`, if any. */
export async function findUserBy(q: Queryable, key: UserKey, value: string): Promise<ObjectRow | undefined> {
  const rows = await q.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE data->>${jsonKey(key)} = ${value}`);
  return rows[0];
}

/** The user with this objectId; `lock` takes the row lock for a read-modify-write. */
export async function findUserById(q: Queryable, objectId: string, lock = false): Promise<ObjectRow | undefined> {
  const rows = await q.query<ObjectRow>(
    lock
      ? sql`SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE "objectId" = ${objectId} FOR UPDATE`
      : sql`SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE "objectId" = ${objectId}`,
  );
  return rows[0];
}

/** The user of a session token (the token itself was checked to be a plausible string). */
export function findUserBySession(q: Queryable, token: string): Promise<ObjectRow | undefined> {
  return findUserBy(q, 'sessionToken', token);
}

/** The stored session token of a row, if it has one. */
export function storedToken(row: ObjectRow): string | undefined {
  const t = row.data.sessionToken;
  return typeof t === 'string' && t !== '' ? t : undefined;
}
