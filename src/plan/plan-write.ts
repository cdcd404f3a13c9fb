/**
 * The row conditions of writes to class tables (update, delete, role and user writes): the write
 * ACL, and the optional `where` of a conditional write compiled exactly as the caller's find
 * would be (field policy, inner-query permissions, read ACL on every inner table), so that a
 * write's 200-or-305 can never reveal what a find would not.
 */
import type { ClassSchema } from '../model/class-schema.ts';
import { ident, join, jsonKey, sql, type Sql } from '../sql/fragment.ts';
import { writeAcl } from './acl.ts';
import { planQuery } from './plan-query.ts';
import type { Access } from './read-access.ts';

/** A planned write's row tests. */
export interface WritePlan {
  /** `wperm && writers` (TRUE for the master key, or when the class ignores ACLs for writes). */
  readonly writable: Sql;
  /** The `where` of a conditional write, AND the read ACL (TRUE without a where). */
  readonly matches: Sql;
}

/** How the row itself is guarded. */
export interface WriteRequest {
  /** `where` of a conditional write (query string); undefined for none. */
  readonly where?: unknown;
  /**
   * `_User` rows ignore ACLs for writes (leancloud-behaviour §3.3: the session decides), so
   * neither the write ACL nor the read ACL applies to the row itself; inner queries keep theirs.
   */
  readonly ignoreRowAcl?: boolean;
}

/** Plans the row tests of a write by the caller. */
export async function planWrite(access: Access, schema: ClassSchema, w: WriteRequest): Promise<WritePlan> {
  const writable = w.ignoreRowAcl ? sql`TRUE` : writeAcl(access.readers);
  if (w.where === undefined) return { writable, matches: sql`TRUE` };
  const plan = await planQuery(access, schema, { where: w.where });
  return { writable, matches: w.ignoreRowAcl ? plan.whereOnly : plan.filter };
}

/**
 * The caller's write-ACL test of one row (`writable`), with some of its stored text fields by
 * name (the same names as columns): why a write touched nothing (write-outcome.ts), whether a
 * role's name may be judged (update-role.ts). No row: no such object.
 */
export function writableRow(access: Access, className: string, objectId: string, textFields: readonly string[] = []): Sql {
  const fields = textFields.map((f) => sql`data->>${jsonKey(f)} AS ${ident(f)}, `);
  return sql`SELECT ${join(fields, ' ')}${writeAcl(access.readers)} AS writable FROM ${ident(className)} WHERE "objectId" = ${objectId}`;
}
