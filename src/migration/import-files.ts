/**
 * Reads the files of an export into the writers: class files as JSON Lines (the header line is
 * optional, other `#` lines are comments) or as one `{"results":[...]}` document (exports before
 * 2021), and relation files of `{owningId, relatedId}` rows in either form. Every record keeps
 * its place (`file:line`, or `file: record #n`) so that errors point at it. A stream that breaks
 * mid-file (truncated archive) still has every complete record before the break written.
 */
import { isClassName } from '../model/names.ts';
import { isPlainObject } from '../model/plain-object.ts';
import type { Batch, BatchWriter } from './batch-writer.ts';
import { parseHeader, type FileHeader } from './export-entries.ts';
import type { SourceEntry } from './export-source.ts';
import { countSkip, type ClassStats, type ImportEvents, type RelationStats } from './import-stats.ts';
import { readLines } from './read-lines.ts';
import { writeRelations } from './write-relations.ts';
import type { ImportTarget } from './write-objects.ts';
import { constants } from 'node:buffer';

/**
 * Largest `{"results":[...]}` document read whole (the old format cannot be streamed): a quarter
 * of V8's longest string, so that the text always fits in one string and parsing it has room.
 */
export const MAX_JSON_DOCUMENT_BYTES = Math.floor(constants.MAX_STRING_LENGTH / 4);
/** Relation rows per writeRelations call. */
const PAIRS_PER_WRITE = 1000;

/** What the readers share. */
export interface ReadContext {
  readonly writer: BatchWriter;
  readonly batchSize: number;
  readonly events: ImportEvents;
  readonly statsOf: (className: string) => ClassStats;
  /** The --classes filter. */
  readonly wanted: (className: string) => boolean;
  /** True for class names the writers accept (a header naming another class is ignored). */
  readonly importable: (className: string) => boolean;
  /** Records read so far in the whole import (for progress). */
  readCount: number;
  /** Bytes of the input read so far and in all. */
  readonly bytes: { read: number; total: number };
  /**
   * `<class>.<column>` -> class, from Relation markers seen in records: names the class behind
   * a relation file in a dry run (a real import reads it from the type lock instead).
   */
  readonly relationHints?: Map<string, string>;
}

/** Notes the Relation markers of a record: they name the class behind a relation file. */
function noteRelations(className: string, record: unknown, hints: Map<string, string>): void {
  if (!isPlainObject(record)) return;
  for (const [key, v] of Object.entries(record)) {
    if (isPlainObject(v) && v.__type === 'Relation' && isClassName(v.className)) hints.set(`${className}.${key}`, v.className);
  }
}

/** A read that stopped early because the bytes ran out or broke; `place` is the last good spot. */
export class BrokenInput extends Error {
  constructor(readonly place: string, readonly reason: unknown) {
    super(`${place}: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

/** The items of `source`; a failure to produce one (not the consumer's) becomes a BrokenInput at `where()`. */
export async function* guarded<T>(source: AsyncIterable<T>, where: () => string): AsyncGenerator<T> {
  try {
    for await (const item of source) yield item;
  } catch (err) {
    throw err instanceof BrokenInput ? err : new BrokenInput(where(), err);
  }
}

function parseRecord(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, reason: `bad JSON: ${(err as Error).message}` };
  }
}

/** The header (if any) and the records of a JSON Lines file, each with its line number. */
async function* jsonLines(entry: SourceEntry, onHeader: (h: FileHeader) => void): AsyncGenerator<{ n: number; parsed: ReturnType<typeof parseRecord> }> {
  let first = true;
  for await (const line of readLines(entry.stream())) {
    if (line.tooLong) {
      yield { n: line.n, parsed: { ok: false, reason: 'line too long' } };
      continue;
    }
    const text = line.text.trim();
    if (!text) continue;
    if (text.startsWith('#')) {
      const header = first ? parseHeader(text) : undefined;
      if (header) onHeader(header);
      first = false;
      continue;
    }
    first = false;
    yield { n: line.n, parsed: parseRecord(text) };
  }
}

/** Reads a whole JSON document and returns its records (`{results:[...]}` or a bare array). */
async function jsonRecords(entry: SourceEntry): Promise<unknown[]> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry.stream()) {
    size += chunk.length;
    if (size > MAX_JSON_DOCUMENT_BYTES) throw new Error(`larger than ${MAX_JSON_DOCUMENT_BYTES} bytes; convert it to JSON Lines`);
    chunks.push(chunk);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new Error(`bad JSON: ${(err as Error).message}`);
  }
  if (Array.isArray(doc)) return doc;
  if (isPlainObject(doc) && Array.isArray(doc.results)) return doc.results;
  throw new Error('expected {"results": [...]} or an array of objects');
}

/** Reads one class file into the batch writer. */
export async function readClassFile(entry: SourceEntry, fileClass: string, format: 'jsonl' | 'json', ctx: ReadContext): Promise<void> {
  const importable = (name: string): boolean => isClassName(name) && ctx.importable(name);
  let className = fileClass;
  let batch: Batch = { className, records: [], places: [] };
  const flush = async (): Promise<void> => {
    if (!batch.records.length) return;
    const full = batch;
    batch = { className, records: [], places: [] };
    await ctx.writer.submit(full);
    ctx.events.progress(ctx.readCount, entry.name, ctx.bytes);
  };
  const add = async (place: string, parsed: ReturnType<typeof parseRecord>): Promise<void> => {
    const stats = ctx.statsOf(className);
    stats.read++;
    ctx.readCount++;
    if (!parsed.ok) {
      countSkip(stats, parsed.reason);
      ctx.events.recordError(place, parsed.reason);
      return;
    }
    if (ctx.relationHints) noteRelations(className, parsed.value, ctx.relationHints);
    batch.records.push(parsed.value);
    batch.places.push(place);
    if (batch.records.length >= ctx.batchSize) await flush();
  };
  let place = `${entry.name}: start`;
  try {
    if (format === 'json') {
      const records = await guardedJson(entry);
      for (let i = 0; i < records.length; i++) await add((place = `${entry.name}: record #${i + 1}`), { ok: true, value: records[i] });
    } else {
      const onHeader = (h: FileHeader): void => {
        if (h.class && h.type !== 'Join' && importable(h.class) && h.class !== className) {
          className = h.class;
          batch = { className, records: [], places: [] };
        }
      };
      for await (const { n, parsed } of guarded(jsonLines(entry, onHeader), () => `${place} (input broken off after this)`)) {
        if (!ctx.wanted(className)) return;
        await add((place = `${entry.name}:${n}`), parsed);
      }
    }
  } catch (err) {
    // What was read before a break is kept: the records already parsed are written.
    if (err instanceof BrokenInput) await flush();
    throw err;
  }
  await flush();
}

async function guardedJson(entry: SourceEntry): Promise<unknown[]> {
  try {
    return await jsonRecords(entry);
  } catch (err) {
    throw new BrokenInput(entry.name, err);
  }
}

/** Decides the class of `relatedId` for a relation file (undefined: unknown). */
export type TargetResolver = (owningClass: string, column: string, header: FileHeader | undefined) => Promise<string | undefined>;

/** Reads one relation file into the join table (or only validates it, without a target). */
export async function readJoinFile(
  entry: SourceEntry,
  rel: { owningClass: string; column: string; format: 'jsonl' | 'json' },
  deps: { target?: ImportTarget; resolve: TargetResolver; events: ImportEvents; stats: (targetClass: string) => RelationStats },
): Promise<void> {
  let header: FileHeader | undefined;
  let stats: RelationStats | undefined;
  let pairs: unknown[] = [];
  let places: string[] = [];
  const flush = async (): Promise<void> => {
    if (!pairs.length || !stats) return;
    const [batch, at] = [pairs, places];
    [pairs, places] = [[], []];
    if (!deps.target) return;
    const out = await writeRelations(deps.target, rel.owningClass, rel.column, stats.targetClass, batch, { markOwners: false });
    stats.added += out.added;
    for (const s of out.skipped) {
      stats.skipped++;
      deps.events.recordError(at[s.index], s.reason);
    }
  };
  const start = async (): Promise<RelationStats | undefined> => {
    const targetClass = await deps.resolve(rel.owningClass, rel.column, header);
    if (!targetClass) {
      deps.events.recordError(entry.name, `relation file skipped: the class of relatedId is unknown (no "relatedClass" in the header, no Relation<Class> type in a schema file or the data)`);
      return undefined;
    }
    const s = deps.stats(targetClass);
    s.files.push(entry.name);
    return s;
  };
  let place = `${entry.name}: start`;
  try {
    const rows: AsyncIterable<{ place: string; parsed: ReturnType<typeof parseRecord> }> = rel.format === 'json'
      ? (async function* () {
        const records = await guardedJson(entry);
        for (let i = 0; i < records.length; i++) yield { place: `${entry.name}: record #${i + 1}`, parsed: { ok: true as const, value: records[i] } };
      })()
      : (async function* () {
        const lines = guarded(jsonLines(entry, (h) => (header = h)), () => `${place} (input broken off after this)`);
        for await (const { n, parsed } of lines) yield { place: `${entry.name}:${n}`, parsed };
      })();
    for await (const row of rows) {
      place = row.place;
      stats ??= await start();
      if (!stats) return;
      stats.read++;
      if (!row.parsed.ok) {
        stats.skipped++;
        deps.events.recordError(row.place, row.parsed.reason);
        continue;
      }
      pairs.push(row.parsed.value);
      places.push(row.place);
      if (pairs.length >= PAIRS_PER_WRITE) await flush();
    }
  } catch (err) {
    if (err instanceof BrokenInput) await flush();
    throw err;
  }
  await flush();
}
