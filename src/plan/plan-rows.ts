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
 * The rows of `className` whose ids a sub-select of the same statement gives (include read
 * together with its page), under the caller's read ACL: the distinct ids joined to the class on
 * `"objectId"`. `ids` selects one text column; an id named several times (one owner of many page
 * rows) gives its row once, an id of no readable row none. A join rather than
 * `"objectId" = ANY(ARRAY(<ids>))`: on a small class PostgreSQL hashes the ids instead of comparing
 * every row with each of them, on a large one it probes the primary key per id as the array did
 * (docs/benchmarks.md, issue 16, "Include's objects by a join").
 */
export function selectByIdsOf(access: Access, className: string, columns: Sql, ids: Sql): Sql {
  return sql`SELECT ${columns} FROM (SELECT DISTINCT i.id FROM (${ids}) AS i(id)) AS ids JOIN ${ident(className)} ON "objectId" = ids.id WHERE ${readAcl(access.readers)}`;
}
