/**
 * DELETE /1.1/users/<id> (and /1.1/classes/_User/<id>): the user itself or the master key only
 * (206 otherwise). In one transaction: the row, its platform bindings, its login-failure count,
 * the relation rows it owns and the relation rows that point at it (its role memberships, so no
 * role keeps a member that no longer exists). Its cached sessions are dropped in every process.
 */
import type { RequestContext } from '../app-context.ts';
import { checkClassPermission } from '../auth/class-permissions.ts';
import { invalidateSessions } from '../auth/cache-invalidation.ts';
import { ApiError } from '../errors/api-error.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { deleteOwnedRelations } from '../objects/relation-rows.ts';
import { restObjectOf, splitWriteBody, storedObject } from '../objects/write-body.ts';
import { afterStage, beforeStage } from '../writes/run-write.ts';
import { sql, type Sql } from '../sql/fragment.ts';
import { unbindAccounts } from './auth-bindings.ts';
import { clearFailures } from './login-lock.ts';
import { assertOwnUserOrMaster } from './user-access.ts';
import { USER_TABLE } from './user-store.ts';
import { compileUserWriteWhere } from './user-write-where.ts';

/** Deletes a user; unknown id 211, a `where` that does not match 305. */
export async function deleteUser(ctx: RequestContext, objectId: string, where?: unknown, body?: unknown): Promise<void> {
  const { app } = ctx;
  await assertOwnUserOrMaster(ctx, objectId);
  await checkClassPermission(ctx, '_User', 'delete');
  let cond: Sql = sql`TRUE`;
  if (where !== undefined) {
    const schema = await app.classes.find('_User');
    if (!schema) throw new ApiError('classNotFound');
    cond = await compileUserWriteWhere(ctx, schema, where);
  }
  // The write pipeline's before stage (hooks may refuse), then the SQL, then the after stage.
  const needs = app.writes.needs('_User', 'delete');
  const flags = needs.before || needs.after ? splitWriteBody(body).flags : {};
  if (needs.before) {
    const stored = await storedObject(ctx, '_User', objectId);
    if (stored) await beforeStage({ ctx, className: '_User', op: 'delete', source: 'api', objectId, object: stored, stored, flags });
  }
  const columns = needs.after ? sql`${OBJECT_COLUMNS}, ` : sql``;
  const deleted = await app.db.transaction(async (tx) => {
    const rows = await tx.query<ObjectRow & { ok: boolean }>(sql`SELECT ${columns}(${cond}) AS ok FROM ${USER_TABLE} WHERE "objectId" = ${objectId} FOR UPDATE`);
    if (!rows[0]) throw new ApiError('userNotFound');
    if (!rows[0].ok) throw new ApiError('noEffect');
    await tx.query(sql`DELETE FROM ${USER_TABLE} WHERE "objectId" = ${objectId}`);
    await unbindAccounts(tx, objectId);
    await clearFailures(tx, objectId);
    await deleteOwnedRelations(tx, '_User', [objectId]);
    await tx.query(sql`DELETE FROM _larder_relations WHERE target_class = '_User' AND target_id = ${objectId}`);
    return rows[0];
  });
  await invalidateSessions(app, objectId);
  if (needs.after) afterStage(ctx, [{ ctx, className: '_User', op: 'delete', source: 'api', objectId, previous: restObjectOf('_User', deleted), flags }]);
}
