/**
 * The server's own changes of `_User` rows outside the REST object path: session token
 * rotation (refreshSessionToken, updatePassword), password resets (mailed link, SMS code),
 * email and phone verification flags, a changed phone number, authData merged at login. They
 * are real writes of the row (its updatedAt moves), so the write pipeline's after extensions
 * hear of them as updates with source `internal`: LiveQuery subscribers get their events; cloud
 * code's class hooks do not run for them, as on LeanCloud (writes/extension-types.ts).
 *
 * Use: `const changes = new UserRowChanges(app)`, `await changes.update(q, set, where, keys)`
 * (in the caller's transaction or not), and `changes.dispatch()` once it has committed.
 */
import type { AppContext, RequestContext } from '../app-context.ts';
import { resolvePrincipal } from '../auth/principal.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { restObjectOf } from '../objects/write-body.ts';
import { sql, type Sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import { CommitEvents } from '../writes/commit-events.ts';
import { USER_TABLE } from './user-store.ts';

type WithPrevious = ObjectRow & { p_id?: string; p_created?: unknown; p_updated?: unknown; p_acl?: ObjectRow['acl']; p_data?: Record<string, unknown> };

/** The context of the server's own writes: no client, the master's view. */
function internalContext(app: AppContext): RequestContext {
  let principal: ReturnType<RequestContext['principal']> | undefined;
  return { app, master: true, production: true, baseUrl: '', principal: () => (principal ??= resolvePrincipal(app, true, undefined)) };
}

/** Internal `_User` row updates of one operation, reported after its commit. */
export class UserRowChanges {
  readonly #events: CommitEvents;

  constructor(app: AppContext) {
    this.#events = new CommitEvents(internalContext(app), 'internal');
  }

  /**
   * `UPDATE "_User" SET <set> WHERE <where>` returning the rows written. When an extension
   * listens, the rows as they were are read in the same statement (a locking sub-select joined
   * to the update, as objects/update-object.ts does), so nobody pays for it otherwise.
   */
  async update(q: Queryable, set: Sql, where: Sql, updatedKeys: readonly string[]): Promise<ObjectRow[]> {
    const needs = this.#events.needs('_User', 'update');
    if (!needs.after) return q.query<ObjectRow>(sql`UPDATE ${USER_TABLE} SET ${set} WHERE ${where} RETURNING ${OBJECT_COLUMNS}`);
    const rows = await q.query<WithPrevious>(sql`UPDATE ${USER_TABLE} SET ${set}
      FROM (SELECT "objectId" AS p_id, "createdAt" AS p_created, "updatedAt" AS p_updated, acl AS p_acl, data AS p_data
        FROM ${USER_TABLE} WHERE ${where} FOR UPDATE) AS p
      WHERE ${USER_TABLE}."objectId" = p.p_id AND ${where}
      RETURNING ${USER_TABLE}."objectId", ${USER_TABLE}."createdAt", ${USER_TABLE}."updatedAt", ${USER_TABLE}.acl, ${USER_TABLE}.data, p.p_id, p.p_created, p.p_updated, p.p_acl, p.p_data`);
    for (const row of rows) {
      const previous = row.p_id ? restObjectOf('_User', { objectId: row.p_id, createdAt: row.p_created, updatedAt: row.p_updated, acl: row.p_acl ?? null, data: row.p_data ?? {} }) : undefined;
      this.#events.record({ className: '_User', op: 'update', objectId: row.objectId, object: restObjectOf('_User', row), ...(previous ? { previous } : {}), updatedKeys });
    }
    return rows.map((r) => ({ objectId: r.objectId, createdAt: r.createdAt, updatedAt: r.updatedAt, acl: r.acl, data: r.data }));
  }

  /** Hands the updates to the after extensions; call once the transaction committed. */
  dispatch(): void {
    this.#events.dispatch();
  }
}
