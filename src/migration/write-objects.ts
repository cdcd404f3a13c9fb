/**
 * The one writer of migrated objects, shared by `larder import` and `larder sync`.
 *
 * CONTRACT (the sync engine codes against it; change it only together with src/migration/sync-*):
 *
 *   writeObjects(target, className, objects, opts?) -> Promise<WriteSummary>
 *
 * - `objects` are in LeanCloud REST/export form: `objectId` (required), `createdAt`/`updatedAt`
 *   as plain ISO strings or `{__type:"Date",iso}`, `ACL` (missing: public read+write, or for
 *   `_User` public read + self write), every wire type (Date, Bytes, Pointer, GeoPoint, File,
 *   Relation marker, arrays, objects), and for `_User` also `password` + `salt` (LeanCloud's
 *   SHA-512 hash, verified and upgraded at login), `sessionToken` (kept valid) and `authData`
 *   (its platform bindings are written too). `__type`/`className` decorations are ignored.
 * - Idempotent upsert keyed by objectId: a new object is inserted; an existing one is replaced
 *   only when the incoming `updatedAt` is newer than or equal to the stored one AND something
 *   differs; otherwise it is left alone (`unchanged`). Same data twice: no change, no duplicate.
 * - `_User` only: `password`, `salt`, `sessionToken` and `authData` that the incoming object does
 *   not carry are KEPT from the stored row (REST reads, and so sync, never see them), so a sync
 *   after an import never wipes password hashes.
 * - Field types are registered with the type lock (app.classes); a record whose field has
 *   another type than the locked one is skipped (reason given), like every malformed record:
 *   skipped records never stop the others. The class is created when missing.
 * - `skipped[i].index` is the position in `objects`; `dropped` counts fields left out per reason
 *   (e.g. `_User.bcryptPassword`). Only infrastructure failures (database down) throw.
 * - Callers may run several writeObjects concurrently (distinct objects); each call writes in
 *   statements of at most BATCH_ROWS rows. Call `announceImported` once at the end so running
 *   servers drop cached sessions and role memberships.
 */
import { AppScope } from '../app-scope.ts';
import { loadSettings } from '../settings/app-settings.ts';
import { invalidateRoles } from '../auth/cache-invalidation.ts';
import { checkClassName } from '../model/names.ts';
import type { ClassRegistry } from '../schema/class-registry.ts';
import type { Database } from '../storage/database.ts';
import { prepareRow, RecordError, type PreparedRow } from './prepare-row.ts';
import { lockRowTypes } from './lock-row-types.ts';
import { upsertRows } from './upsert-rows.ts';

/** Where migrated data goes: the configured database and its class catalogue. */
export interface ImportTarget {
  readonly db: Database;
  readonly classes: ClassRegistry;
}

/** One record that was not written. */
export interface SkippedRecord {
  /** Position in the `objects` given to writeObjects. */
  readonly index: number;
  readonly objectId?: string;
  readonly reason: string;
}

/** What one writeObjects call did. */
export interface WriteSummary {
  /** Objects given. */
  readonly received: number;
  readonly inserted: number;
  readonly updated: number;
  /** Already stored with the same data, or stored with a newer updatedAt. */
  readonly unchanged: number;
  readonly skipped: readonly SkippedRecord[];
  /** Fields left out, `"<field>: <reason>"` -> count. */
  readonly dropped: Readonly<Record<string, number>>;
}

/** Options of writeObjects. */
export interface WriteOptions {
  /** Timestamp for records with neither createdAt nor updatedAt (default: now). */
  readonly now?: string;
}

/** Rows per INSERT statement: large enough to amortise round trips, small enough for one lock set. */
export const BATCH_ROWS = 500;

/** A prepared row and where it came from. */
export interface IndexedRow {
  readonly index: number;
  readonly row: PreparedRow;
}

/** Keeps one row per objectId: the newest updatedAt, the later record on a tie. */
function dedupe(rows: IndexedRow[], skipped: SkippedRecord[]): IndexedRow[] {
  const byId = new Map<string, IndexedRow>();
  for (const r of rows) {
    const have = byId.get(r.row.objectId);
    if (have && have.row.updatedAt > r.row.updatedAt) {
      skipped.push({ index: r.index, objectId: r.row.objectId, reason: 'an older copy of an object given again in the same batch' });
      continue;
    }
    if (have) skipped.push({ index: have.index, objectId: have.row.objectId, reason: 'an older copy of an object given again in the same batch' });
    byId.set(r.row.objectId, r);
  }
  return [...byId.values()];
}

/** Upserts objects of one class idempotently (see the contract at the top of this file). */
export async function writeObjects(
  target: ImportTarget,
  className: string,
  objects: readonly unknown[],
  opts: WriteOptions = {},
): Promise<WriteSummary> {
  checkClassName(className);
  const now = opts.now ?? new Date().toISOString();
  const skipped: SkippedRecord[] = [];
  const dropped: Record<string, number> = {};
  const prepared: IndexedRow[] = [];
  objects.forEach((raw, index) => {
    try {
      const row = prepareRow(className, raw, now);
      for (const d of row.dropped) dropped[`${d.field}: ${d.reason}`] = (dropped[`${d.field}: ${d.reason}`] ?? 0) + 1;
      prepared.push({ index, row });
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      const id = typeof raw === 'object' && raw !== null && 'objectId' in raw && typeof raw.objectId === 'string' ? raw.objectId : undefined;
      skipped.push({ index, objectId: id, reason: err.message });
    }
  });
  const typed = await lockRowTypes(target, className, dedupe(prepared, skipped), skipped);
  let inserted = 0;
  let updated = 0;
  for (let i = 0; i < typed.length; i += BATCH_ROWS) {
    const out = await upsertRows(target.db, className, typed.slice(i, i + BATCH_ROWS));
    inserted += out.inserted;
    updated += out.updated;
    for (const f of out.failed) skipped.push({ index: f.index, objectId: f.objectId, reason: f.reason });
  }
  skipped.sort((a, b) => a.index - b.index);
  const unchanged = objects.length - inserted - updated - skipped.length;
  return { received: objects.length, inserted, updated, unchanged, skipped, dropped };
}

/**
 * Tells every running Larder process on this database that users and roles may have changed,
 * so cached sessions and role memberships are read afresh. Call once when a migration ends.
 */
export async function announceImported(target: ImportTarget): Promise<void> {
  // A scope of its own: this tool is not an open app, it only announces on the app's channel.
  const scope = new AppScope(await loadSettings(target.db));
  await invalidateRoles({ db: target.db, classes: target.classes, scope });
}
