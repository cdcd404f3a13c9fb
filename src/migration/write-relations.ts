/**
 * Relation membership of migrated data: rows `{owningId, relatedId}` of one (owning class,
 * column, target class), as LeanCloud's import takes them and as Parse-style `_Join:<column>:
 * <owning class>` files hold them (leancloud-export-format §5). Stored in the one join table
 * `_larder_relations`, exactly as AddRelation does (src/objects/relation-rows.ts), so
 * `$relatedTo`, role membership and role inheritance read them with no difference. Idempotent:
 * a pair already present is left alone.
 */
import { ApiError } from '../errors/api-error.ts';
import { isClassName } from '../model/names.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { isValidObjectId } from '../model/object-id.ts';
import { checkFieldName } from '../objects/parse-write.ts';
import { checkClassName } from '../model/names.ts';
import { ident, jsonKey, sql } from '../sql/fragment.ts';
import type { ImportTarget, SkippedRecord } from './write-objects.ts';

/** Pairs per INSERT statement. */
const RELATION_BATCH = 1000;

/** What one writeRelations call did. */
export interface RelationSummary {
  readonly received: number;
  /** Pairs that were not stored before. */
  readonly added: number;
  readonly skipped: readonly SkippedRecord[];
}

/** Registers `column` as Relation<targetClass> on the owning class (111 if it has another type). */
async function lockRelationField(target: ImportTarget, owningClass: string, column: string, targetClass: string): Promise<void> {
  const schema = await target.db.transaction(async (tx) => {
    await target.classes.ensureClass(tx, owningClass);
    return target.classes.lockFields(tx, owningClass, { [column]: { type: 'Relation', className: targetClass } });
  });
  target.classes.publish(schema);
}

/**
 * Puts the relation marker `{__type:"Relation", className}` on owning rows that have members
 * but no marker yet, so reads show the column as the original service does. Runs again at the
 * end of an import: owning rows may arrive after their relation file.
 */
export async function markRelationOwners(target: ImportTarget, owningClass: string, column: string, targetClass: string): Promise<void> {
  const marker = JSON.stringify({ [column]: { __type: 'Relation', className: targetClass } });
  await target.db.query(sql`UPDATE ${ident(owningClass)} SET data = data || ${marker}::jsonb
    WHERE data->${jsonKey(column)} IS NULL AND "objectId" IN (SELECT owner_id FROM _larder_relations
      WHERE owner_class = ${owningClass} AND key = ${column} AND target_class = ${targetClass})`);
}

/**
 * Adds relation pairs (objects `{owningId, relatedId}`; anything else in a pair is ignored).
 * Bad class or column names throw an ApiError (the whole set is unusable); a pair with a
 * missing or bad id is skipped with its index. The owning objects need not exist yet; owners
 * that do get the relation marker unless `markOwners` is false.
 */
export async function writeRelations(
  target: ImportTarget,
  owningClass: string,
  column: string,
  targetClass: string,
  pairs: readonly unknown[],
  opts: { markOwners?: boolean } = {},
): Promise<RelationSummary> {
  checkClassName(owningClass);
  checkFieldName(column);
  if (!isClassName(targetClass)) throw new ApiError('invalidClassName', `Invalid relation target class '${String(targetClass).slice(0, 80)}'.`);
  const skipped: SkippedRecord[] = [];
  const owners: string[] = [];
  const related: string[] = [];
  pairs.forEach((p, index) => {
    const owningId = isPlainObject(p) ? p.owningId : undefined;
    const relatedId = isPlainObject(p) ? p.relatedId : undefined;
    if (typeof owningId !== 'string' || !isValidObjectId(owningId) || typeof relatedId !== 'string' || !isValidObjectId(relatedId)) {
      skipped.push({ index, reason: 'a relation row must be {"owningId": "<objectId>", "relatedId": "<objectId>"}' });
      return;
    }
    owners.push(owningId);
    related.push(relatedId);
  });
  await lockRelationField(target, owningClass, column, targetClass);
  let added = 0;
  for (let i = 0; i < owners.length; i += RELATION_BATCH) {
    const rows = await target.db.query<{ n: number }>(sql`INSERT INTO _larder_relations (owner_class, owner_id, key, target_class, target_id)
      SELECT ${owningClass}, o, ${column}, ${targetClass}, r
      FROM unnest(${owners.slice(i, i + RELATION_BATCH)}::text[], ${related.slice(i, i + RELATION_BATCH)}::text[]) AS p(o, r)
      ON CONFLICT DO NOTHING RETURNING 1 AS n`);
    added += rows.length;
  }
  // Bulk imports mark owners once at the end instead (markOwners: false): owners may come later.
  if (added && opts.markOwners !== false) await markRelationOwners(target, owningClass, column, targetClass);
  return { received: pairs.length, added, skipped };
}
