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
import { deleteOwnedRelations } from '../objects/relation-rows.ts';
import { sql, type Sql } from '../sql/fragment.ts';
import { unbindAccounts } from './auth-bindings.ts';
import { clearFailures } from './login-lock.ts';
import { assertOwnUserOrMaster } from './user-access.ts';
import { USER_TABLE } from './user-store.ts';
import { compileUserWriteWhere } from './user-write-where.ts';

/** Deletes a user; unknown id 211, a `where` that does not match 305. */
export async function deleteUser(ctx: RequestContext, objectId: string, where?: unknown): Promise<void> {
  const { app } = ctx;
  await assertOwnUserOrMaster(ctx, objectId);
  await checkClassPermission(ctx, '_User', 'delete');
  let cond: Sql = sql`TRUE`;
  if (where !== undefined) {
    const schema = await app.classes.find('_User');
    if (!schema) throw new ApiError('classNotFound');
    cond = await compileUserWriteWhere(ctx, schema, where);
  }
  await app.db.transaction(async (tx) => {
    const rows = await tx.query<{ ok: boolean }>(sql`SELECT (${cond}) AS ok FROM ${USER_TABLE} WHERE "objectId" = ${objectId} FOR UPDATE`);
    if (!rows[0]) throw new ApiError('userNotFound');
    if (!rows[0].ok) throw new ApiError('noEffect');
    await tx.query(sql`DELETE FROM ${USER_TABLE} WHERE "objectId" = ${objectId}`);
    await unbindAccounts(tx, objectId);
    await clearFailures(tx, objectId);
    await deleteOwnedRelations(tx, '_User', [objectId]);
    await tx.query(sql`DELETE FROM _larder_relations WHERE target_class = '_User' AND target_id = ${objectId}`);
  });
  await invalidateSessions(app, objectId);
}
