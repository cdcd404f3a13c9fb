import type { RequestContext } from '../../app-context.ts';
import { ApiError, isApiError } from '../../errors/api-error.ts';
import { checkClassName } from '../../model/names.ts';
import { createClassContext, createdEvent, createdObject, insertPrepared, prepareInClass, type CreateClassContext, type PreparedCreate } from '../../objects/create-object.ts';
import { withFiles } from '../../objects/create-object.ts';
import { flag } from '../query-params.ts';
import { afterStage } from '../../writes/run-write.ts';
import type { BatchItem, BatchResult, ExecuteItem } from './run-batch.ts';

/**
 * Serves a run of consecutive creates in one class: every item is checked on its own (its
 * errors are its own), then all valid rows go to the database in one multi-row insert. If that
 * insert fails as a whole (e.g. two new objects give one new field different types), the
 * valid items are replayed one by one so each gets its own success or error.
 */
export async function runCreateGroup(ctx: RequestContext, className: string, items: readonly BatchItem[], executeOne: ExecuteItem): Promise<BatchResult[]> {
  checkClassName(className);
  const results: BatchResult[] = new Array(items.length);
  const needs = ctx.app.writes.needs(className, 'create');
  if (needs.before) {
    // Before extensions (hooks) run per item and may refuse one item: each item is its own
    // create through the pipeline, so a replay can never run an item's hooks twice.
    for (let i = 0; i < items.length; i++) {
      try {
        results[i] = { success: (await executeOne(items[i])).body };
      } catch (e) {
        results[i] = { error: (isApiError(e) ? e : new ApiError('internal')).toJSON() };
      }
    }
    return results;
  }
  const prepared: { index: number; row: PreparedCreate }[] = [];
  // Class-level checks once for the run: a refusal (class permission) is every item's error.
  let cls: CreateClassContext;
  try {
    cls = await createClassContext(ctx, className);
  } catch (err) {
    if (!isApiError(err)) throw err;
    return items.map(() => ({ error: err.toJSON() }));
  }
  const now = new Date().toISOString();
  for (let i = 0; i < items.length; i++) {
    try {
      prepared.push({ index: i, row: await prepareInClass(ctx, cls, items[i].body, now) });
    } catch (err) {
      if (!isApiError(err)) throw err;
      results[i] = { error: err.toJSON() };
    }
  }
  try {
    await insertPrepared(ctx, className, prepared.map((p) => p.row));
  } catch (err) {
    if (!isApiError(err)) throw err;
    for (const p of prepared) {
      try {
        results[p.index] = { success: (await executeOne(items[p.index])).body };
      } catch (e) {
        results[p.index] = { error: (isApiError(e) ? e : new ApiError('internal')).toJSON() };
      }
    }
    return results;
  }
  if (needs.after) afterStage(ctx, prepared.map((p) => createdEvent(ctx, className, p.row, p.row.flags)));
  for (const p of prepared) {
    const q = items[p.index].query;
    const full = flag(q, 'fetchWhenSave') || flag(q, 'new');
    results[p.index] = { success: full ? await withFiles(ctx, className, createdObject(p.row)) : { objectId: p.row.objectId, createdAt: p.row.now } };
  }
  return results;
}
