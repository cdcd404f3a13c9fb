/**
 * Counters of one import, per class and per relation file, and the shape of the events the
 * import reports as it goes (record errors with their place, progress, notes). Pure data: the
 * CLI decides how to show them.
 */
import type { WriteSummary } from './write-objects.ts';

/** Counters of one class. */
export interface ClassStats {
  /** Records read (including malformed ones). */
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Skip reasons, shortened to their kind, -> count. */
  reasons: Map<string, number>;
  /** Fields left out (e.g. bcryptPassword) -> count. */
  dropped: Map<string, number>;
}

/** Counters of one relation (owning class, column). */
export interface RelationStats {
  targetClass: string;
  read: number;
  added: number;
  skipped: number;
  files: string[];
}

/** What the import reports while it runs. */
export interface ImportEvents {
  /** One record was not imported: `where` is `file:line` or `file: record #n`. */
  recordError(where: string, reason: string): void;
  /** Something the operator should know that is no record's fault (ignored file, bad schema...). */
  note(message: string): void;
  /** Called after every batch: records read so far, the file being read, and the input's bytes. */
  progress(recordsRead: number, file: string, bytes: { read: number; total: number }): void;
}

/** Fresh counters. */
export function newClassStats(): ClassStats {
  return { read: 0, inserted: 0, updated: 0, unchanged: 0, skipped: 0, reasons: new Map(), dropped: new Map() };
}

/** The kind of a reason, for the summary: values in quotes and numbers are left out. */
export function reasonKind(reason: string): string {
  return reason.replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N').slice(0, 120);
}

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** Adds a skipped record to the counters. */
export function countSkip(stats: ClassStats, reason: string): void {
  stats.skipped++;
  bump(stats.reasons, reasonKind(reason));
}

/** Adds what one writeObjects call did (its skips are counted by the caller, with their places). */
export function countWrite(stats: ClassStats, s: WriteSummary): void {
  stats.inserted += s.inserted;
  stats.updated += s.updated;
  stats.unchanged += s.unchanged;
  for (const [k, n] of Object.entries(s.dropped)) bump(stats.dropped, k, n);
}
