import type { RequestContext } from '../app-context.ts';
import { checkClassPermission } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { ident, sql, type Sql } from '../sql/fragment.ts';
import { deleteOwnedRelations } from './relation-rows.ts';
import { accessOf, planWrite } from '../plan/index.ts';
import { whyNoWrite } from './write-outcome.ts';
import { OBJECT_COLUMNS, type ObjectRow } from './object-row.ts';
import { restObjectOf, splitWriteBody } from './write-body.ts';
import { afterStage, beforeStage } from '../writes/run-write.ts';
import type { WriteEvent } from '../writes/write-extension-api.ts';

/** Most ids one comma-joined DELETE may name (the JS SDK's destroyAll sends them this way). */
export const MAX_DELETE_IDS = 1000;

/**
 * Deletes objects by id (one, or several comma-joined as the JS SDK's destroyAll sends them)
 * together with the relation rows they own. A missing object is not an error (deleting is
 * idempotent); no write permission is 403; a `where` that does not match is 305. With several
 * ids nothing is deleted unless every object may be deleted. Runs the write pipeline's stages
 * (before extensions per object, after extensions per deleted object once committed); `body` is
 * the DELETE body, which may carry `__ignore_hooks`.
 */
export async function deleteObjects(ctx: RequestContext, className: string, objectIds: readonly string[], where?: unknown, body?: unknown): Promise<void> {
  const { db, classes } = ctx.app;
  const schema = await classes.find(className);
  if (!schema) throw new ApiError('classNotFound');
  if (objectIds.length > MAX_DELETE_IDS) throw new ApiError('badRequest', `At most ${MAX_DELETE_IDS} objects can be deleted at once.`);
  await checkClassPermission(ctx, className, 'delete');
  const access = await accessOf(ctx);
  const rowTests = await planWrite(access, schema, { where });
  const table = ident(className);
  // The pipeline's before stage: each stored object is shown to the before extensions (hooks),
  // any of which may refuse the delete; nothing is deleted then.
  const needs = ctx.app.writes.needs(className, 'delete');
  const flags = needs.before || needs.after ? splitWriteBody(body).flags : {};
  if (needs.before) {
    const stored = await db.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM ${table} WHERE "objectId" = ANY(${objectIds}::text[])`);
    for (const row of stored) {
      const object = restObjectOf(className, row);
      await beforeStage({ ctx, className, op: 'delete', source: 'api', objectId: row.objectId, object, stored: object, flags });
    }
  }
  // With after extensions the locking read returns whole rows: they are the delete events.
  const columns = needs.after ? sql`${OBJECT_COLUMNS}, ` : sql`"objectId", `;
  const events: WriteEvent[] = [];
  await db.transaction(async (tx) => {
    const existing = await tx.query<ObjectRow & { ok: boolean }>(
      sql`SELECT ${columns}(${rowTests.writable}) AND (${rowTests.matches}) AS ok FROM ${table} WHERE "objectId" = ANY(${objectIds}::text[]) FOR UPDATE`,
    );
    const refused = existing.find((r) => !r.ok);
    if (refused) throw await whyNoWrite(tx, className, refused.objectId, access);
    if (!existing.length) {
      if (where !== undefined) throw new ApiError('noEffect');
      return;
    }
    const ids = existing.map((r) => r.objectId);
    await tx.query(sql`DELETE FROM ${table} WHERE "objectId" = ANY(${ids}::text[])`);
    await deleteOwnedRelations(tx, className, ids);
    if (needs.after) {
      for (const row of existing) events.push({ ctx, className, op: 'delete', source: 'api', objectId: row.objectId, previous: restObjectOf(className, row), flags });
    }
  });
  afterStage(ctx, events);
}
