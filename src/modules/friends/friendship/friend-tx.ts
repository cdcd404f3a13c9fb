import type { AppContext, RequestContext } from '../../../module-api/context.ts';
import { type ClassSchema, type FieldSchema, sql, type Queryable } from '../../../module-api/data.ts';
import { CommitEvents } from '../../../module-api/writes.ts';
import { ensureFriendTables, type FriendClass } from './friend-tables.ts';

/** A friendship write in progress: the transaction plus the schema changes to publish on commit. */
export interface FriendTx {
  readonly tx: Queryable;
  readonly app: AppContext;
  /** Row writes for the write pipeline's after stage, dispatched once the transaction commits. */
  readonly events: CommitEvents;
  /** Type-locks the fields a row write sets (custom attributes included). */
  lock(cls: FriendClass, types: Record<string, FieldSchema>): Promise<void>;
}

/**
 * Runs a friendship write in ONE transaction (no half-made friendships) holding a transaction
 * advisory lock per involved user, taken in sorted order so two writers never deadlock. The
 * locks serialise everything that touches one user's friendships: concurrent accepts or follows
 * of the same pair cannot both pass their checks, and limits (5,000 followees, 100 blocked) are
 * counted without a race. The unique pair indexes stay as the last line of defence.
 */
export async function friendTransaction<T>(ctx: RequestContext, userIds: readonly string[], work: (ft: FriendTx) => Promise<T>): Promise<T> {
  const { app } = ctx;
  await ensureFriendTables(app);
  const events = new CommitEvents(ctx);
  const schemas: ClassSchema[] = [];
  const result = await app.db.transaction(async (tx) => {
    for (const id of [...new Set(userIds)].sort()) {
      await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${'larder.friend.' + id}))`);
    }
    const ft: FriendTx = {
      tx,
      app,
      events,
      async lock(cls, types) {
        if (app.classes.knowsAll(cls, types)) return;
        schemas.push(await app.classes.lockFields(tx, cls, types));
      },
    };
    return work(ft);
  });
  for (const s of schemas) app.classes.publish(s);
  events.dispatch();
  return result;
}
