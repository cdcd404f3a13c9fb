/**
 * Where `larder sync` keeps its progress: one row per (source URL, source app id, class) in
 * `_larder_sync_state` of the target database, saved after every page. A sync that is stopped
 * or killed resumes from its last saved page instead of starting over. The table belongs to the
 * sync alone (no core code reads it) and is created idempotently when a sync starts, like the
 * tables of optional modules.
 */
import { sql } from '../sql/fragment.js';
/** Creates the state table if it does not exist (safe to run from several processes). */
export async function ensureStateTable(db) {
    await db.query(sql `CREATE TABLE IF NOT EXISTS _larder_sync_state (
    source text NOT NULL,
    app_id text NOT NULL,
    class_name text NOT NULL,
    phase text NOT NULL,
    last_id text,
    cursor text,
    cursor_at bigint,
    high_water text,
    copied bigint NOT NULL DEFAULT 0,
    reconciled_at bigint,
    saved_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, app_id, class_name)
  )`);
}
const num = (v) => (v === null ? null : Number(v));
/** Every saved class state of this sync, by class name. */
export async function loadStates(db, key) {
    const rows = await db.query(sql `SELECT class_name, phase, last_id, cursor, cursor_at, high_water, copied, reconciled_at
      FROM _larder_sync_state WHERE source = ${key.source} AND app_id = ${key.appId}`);
    const out = new Map();
    for (const r of rows) {
        out.set(r.class_name, {
            className: r.class_name,
            phase: r.phase === 'incremental' ? 'incremental' : 'full',
            lastId: r.last_id,
            cursor: r.cursor,
            cursorAt: num(r.cursor_at),
            highWater: r.high_water,
            copied: Number(r.copied),
            reconciledAt: num(r.reconciled_at),
        });
    }
    return out;
}
/** A class never synced before: a full copy from the start. */
export function freshState(className) {
    return { className, phase: 'full', lastId: null, cursor: null, cursorAt: null, highWater: null, copied: 0, reconciledAt: null };
}
/** Saves one class's state (insert or replace). */
export async function saveState(db, key, s) {
    await db.query(sql `INSERT INTO _larder_sync_state AS t
      (source, app_id, class_name, phase, last_id, cursor, cursor_at, high_water, copied, reconciled_at, saved_at)
    VALUES (${key.source}, ${key.appId}, ${s.className}, ${s.phase}, ${s.lastId}, ${s.cursor}, ${s.cursorAt}, ${s.highWater}, ${s.copied}, ${s.reconciledAt}, now())
    ON CONFLICT (source, app_id, class_name) DO UPDATE SET phase = EXCLUDED.phase, last_id = EXCLUDED.last_id,
      cursor = EXCLUDED.cursor, cursor_at = EXCLUDED.cursor_at, high_water = EXCLUDED.high_water,
      copied = EXCLUDED.copied, reconciled_at = EXCLUDED.reconciled_at, saved_at = now()`);
}
//# sourceMappingURL=sync-state.js.map