/**
 * Reads of class rows by id (get, a user by id, include, module lists): `"objectId"` matches and
 * the caller's read ACL holds. An object the caller may not read is indistinguishable from a
 * missing one.
 */
import { ident, sql, type Sql } from '../sql/fragment.ts';
import { readAcl } from './acl.ts';
import type { Access } from './read-access.ts';

/** `SELECT <columns> FROM <class> WHERE "objectId" = id AND <read ACL>`. */
export function selectById(access: Access, className: string, columns: Sql, objectId: string): Sql {
  return sql`SELECT ${columns} FROM ${ident(className)} WHERE "objectId" = ${objectId} AND ${readAcl(access.readers)}`;
}

/** `SELECT <columns> FROM <class> WHERE "objectId" = ANY(ids) AND <read ACL>`. */
export function selectByIds(access: Access, className: string, columns: Sql, objectIds: readonly string[]): Sql {
  return sql`SELECT ${columns} FROM ${ident(className)} WHERE "objectId" = ANY(${[...objectIds]}::text[]) AND ${readAcl(access.readers)}`;
}

/**
 * `SELECT <columns> FROM <class> WHERE "objectId" = ANY(ARRAY(<ids>)) AND <read ACL>`: the ids
 * come from a sub-select of the same statement (include read together with its page). As an
 * array, the ids make the same plan as selectByIds' parameter: the primary key, or a scan of a
 * small table.
 */
export function selectByIdsOf(access: Access, className: string, columns: Sql, ids: Sql): Sql {
  return sql`SELECT ${columns} FROM ${ident(className)} WHERE "objectId" = ANY(ARRAY(${ids})) AND ${readAcl(access.readers)}`;
}
