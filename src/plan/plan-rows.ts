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
 * small table that compares each row with every id.
 */
export function selectByIdsOf(access: Access, className: string, columns: Sql, ids: Sql): Sql {
  return sql`SELECT ${columns} FROM ${ident(className)} WHERE "objectId" = ANY(ARRAY(${ids})) AND ${readAcl(access.readers)}`;
}

/**
 * The rows selectByIdsOf reads, by a join: the distinct ids of the sub-select (one text column)
 * joined to the class on `"objectId"`, under the caller's read ACL; an id named several times
 * gives its row once. On a small class PostgreSQL hashes the ids instead of comparing every row
 * with each of them, on a large one it probes the primary key per id as the array does
 * (docs/benchmarks.md, issue 16, "Include's objects by a join").
 */
export function selectJoinedByIdsOf(access: Access, className: string, columns: Sql, ids: Sql): Sql {
  return sql`SELECT ${columns} FROM (SELECT DISTINCT i.id FROM (${ids}) AS i(id)) AS ids JOIN ${ident(className)} ON "objectId" = ids.id WHERE ${readAcl(access.readers)}`;
}
