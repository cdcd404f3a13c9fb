/**
 * The `where` of a conditional user write (PUT or DELETE /1.1/users/<id>?where=...). `_User`
 * ignores ACLs for writes (leancloud-behaviour §3.3), so the user row itself is tested without
 * an ACL clause; everything else about the condition is what a find by the same caller may do:
 * - hidden and client-invisible fields (password, sessionToken, authData, email... :
 *   plan/field-policy.ts) cannot be named (102), also inside inner queries, unless the master
 *   key is used;
 * - inner queries ($inQuery, $select, ...) see only the rows the caller may read, and need the
 *   `find` permission of their classes.
 * Compiling with no readers at all (as these writes once did) turned a non-master write into an
 * oracle: whether `?where={"x":{"$select":{... "sessionToken":{"$regex":"^a"}}}}` matched (200
 * or 305) revealed other users' hidden fields and objects their ACLs hide.
 */
import type { RequestContext } from '../app-context.ts';
import { accessOf, planWrite } from '../plan/index.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import type { Sql } from '../sql/fragment.ts';

/** The SQL condition of a user write's `where` (no ACL on the user row; see the file comment). */
export async function compileUserWriteWhere(ctx: RequestContext, schema: ClassSchema, where: unknown): Promise<Sql> {
  const plan = await planWrite(await accessOf(ctx), schema, { where: where ?? {}, ignoreRowAcl: true });
  return plan.matches;
}
