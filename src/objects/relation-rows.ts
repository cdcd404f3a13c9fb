import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import type { RelationChange } from '../model/write-ops.ts';

/** Writes AddRelation/RemoveRelation changes of one owner object to the join table. */
export async function applyRelationChanges(tx: Queryable, ownerClass: string, ownerId: string, changes: readonly RelationChange[]): Promise<void> {
  for (const c of changes) {
    if (!c.targetIds.length) continue;
    if (c.action === 'add') {
      await tx.query(sql`INSERT INTO _larder_relations (owner_class, owner_id, key, target_class, target_id)
        SELECT ${ownerClass}, ${ownerId}, ${c.key}, ${c.targetClass}, t FROM unnest(${c.targetIds}::text[]) AS t
        ON CONFLICT DO NOTHING`);
    } else {
      await tx.query(sql`DELETE FROM _larder_relations WHERE owner_class = ${ownerClass} AND owner_id = ${ownerId}
        AND key = ${c.key} AND target_id = ANY(${c.targetIds}::text[])`);
    }
  }
}

/** Removes every relation row owned by the given objects (on delete). */
export async function deleteOwnedRelations(tx: Queryable, ownerClass: string, ownerIds: readonly string[]): Promise<void> {
  await tx.query(sql`DELETE FROM _larder_relations WHERE owner_class = ${ownerClass} AND owner_id = ANY(${ownerIds}::text[])`);
}
