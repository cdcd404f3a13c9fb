/**
 * `larder import`, the use-case: reads every file of an export (see export-source.ts) and
 * writes it through the shared writer (write-objects.ts). Class files are imported as they
 * come; relation files are kept aside (archive entries spooled to a temporary folder) and
 * applied after all objects and schema files, when the class behind each relation is known and
 * the owning rows exist to get their Relation marker. A broken input (truncated archive) stops
 * reading, but everything read before it is written and relation files read whole are applied.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { isClassName } from '../model/names.ts';
import { checkClassName } from '../model/names.ts';
import { fieldOf, type FieldSchema } from '../model/class-schema.ts';
import { BatchWriter } from './batch-writer.ts';
import { classifyEntry, type ExportEntry, type FileHeader } from './export-entries.ts';
import { exportEntries, sourceKind, type ByteProgress, type SourceEntry } from './export-source.ts';
import { BrokenInput, guarded, readClassFile, readJoinFile, type ReadContext } from './import-files.ts';
import { parseSchemaFile, registerSchema } from './import-schemas.ts';
import { newClassStats, type ClassStats, type ImportEvents, type RelationStats } from './import-stats.ts';
import { markRelationOwners } from './write-relations.ts';
import { announceImported, type ImportTarget } from './write-objects.ts';

/** Options of runImport. */
export interface ImportOptions {
  readonly path: string;
  /** Where to write; absent for a dry run (validate and count only). */
  readonly target?: ImportTarget;
  /** Import only these classes (and relations they own). */
  readonly classes?: ReadonlySet<string>;
  readonly concurrency?: number;
  readonly batchSize?: number;
  readonly events: ImportEvents;
}

/** The outcome of an import. */
export interface ImportResult {
  readonly classes: Map<string, ClassStats>;
  /** Keyed by `<owning class>.<column>`. */
  readonly relations: Map<string, RelationStats>;
  /** Files that are not part of an export, or filtered out. */
  readonly ignored: string[];
  /** Set when the input broke off (truncated or corrupt): where, and why. */
  broken?: string;
  /** Records (and relation files) that could not be imported. */
  failures: number;
}

/** Records per batch, and batches in flight: measured best on a 2-core machine (docs/benchmarks.md). */
export const DEFAULT_BATCH_SIZE = 1000;
export const DEFAULT_CONCURRENCY = 3;

/** Relation columns every app has (migration 4), for a dry run without a database. */
const KNOWN_RELATIONS: Readonly<Record<string, string>> = { '_Role.users': '_User', '_Role.roles': '_Role' };

type JoinEntry = Extract<ExportEntry, { kind: 'join' }>;

/** Imports the export at `opts.path`. Infrastructure failures (database down) throw. */
export async function runImport(opts: ImportOptions): Promise<ImportResult> {
  const kind = await sourceKind(opts.path);
  const result: ImportResult = { classes: new Map(), relations: new Map(), ignored: [], failures: 0 };
  const events: ImportEvents = {
    ...opts.events,
    recordError: (where, reason) => {
      result.failures++;
      opts.events.recordError(where, reason);
    },
  };
  const statsOf = (c: string): ClassStats => {
    let s = result.classes.get(c);
    if (!s) result.classes.set(c, (s = newClassStats()));
    return s;
  };
  const wanted = (c: string): boolean => !opts.classes || opts.classes.has(c);
  const writer = new BatchWriter({ target: opts.target, concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY, events, statsOf, now: new Date().toISOString() });
  const bytes: ByteProgress = { read: 0, total: 0 };
  const ctx: ReadContext = { writer, batchSize: opts.batchSize ?? DEFAULT_BATCH_SIZE, events, statsOf, wanted, importable: importableClass, readCount: 0, bytes, relationHints: opts.target ? undefined : new Map() };
  const joins: { entry: SourceEntry; rel: JoinEntry }[] = [];
  const schemas = new Map<string, Record<string, FieldSchema>>();
  const spool = await mkdtemp(join(tmpdir(), 'larder-import-'));
  try {
    try {
      let last = opts.path;
      for await (const entry of guarded(exportEntries(opts.path, kind, bytes), () => `${last} (the archive broke off after this entry)`)) {
        last = entry.name;
        const what = classifyEntry(entry.name);
        const owner = what?.kind === 'join' ? what.owningClass : what?.className;
        if (!what || !owner || !wanted(owner)) {
          result.ignored.push(entry.name);
          continue;
        }
        if (!importableClass(owner)) {
          events.recordError(entry.name, `'${owner}' is not a class name Larder accepts (letters, digits and _, starting with a letter; or a built-in class): file skipped`);
          continue;
        }
        if (what.kind === 'class') {
          await readClassFile(entry, what.className, what.format, ctx);
        } else if (what.kind === 'schema') {
          await readSchema(entry, what.className, schemas, events);
        } else {
          joins.push({ entry: entry.sequential ? await spoolEntry(entry, spool, joins.length) : entry, rel: what });
        }
      }
    } catch (err) {
      if (!(err instanceof BrokenInput)) throw err;
      result.broken = err.message;
    }
    await writer.drain();
    if (opts.target) await applySchemas(opts.target, schemas, events);
    await applyJoins(opts, joins, { schemas, hints: ctx.relationHints, bytes, records: () => ctx.readCount }, result, events);
    if (opts.target) await announceImported(opts.target);
  } finally {
    await rm(spool, { recursive: true, force: true });
  }
  return result;
}

/** True for a class name the writers accept (checkClassName, without throwing). */
export function importableClass(name: string): boolean {
  try {
    checkClassName(name);
    return true;
  } catch {
    return false;
  }
}

/** Copies an archive entry to a temporary file, so it can be read after the archive moved on. */
async function spoolEntry(entry: SourceEntry, dir: string, n: number): Promise<SourceEntry> {
  const file = join(dir, `join-${n}.data`);
  try {
    await pipeline(Readable.from(entry.stream()), createWriteStream(file));
  } catch (err) {
    throw new BrokenInput(`${entry.name}`, err);
  }
  return { name: entry.name, sequential: false, stream: () => createReadStream(file) };
}

async function readSchema(entry: SourceEntry, className: string, schemas: Map<string, Record<string, FieldSchema>>, events: ImportEvents): Promise<void> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of entry.stream()) chunks.push(c);
  } catch (err) {
    throw new BrokenInput(entry.name, err);
  }
  try {
    schemas.set(className, parseSchemaFile(Buffer.concat(chunks).toString('utf8')));
  } catch (err) {
    events.note(`${entry.name}: schema file ignored: ${(err as Error).message}`);
  }
}

async function applySchemas(target: ImportTarget, schemas: Map<string, Record<string, FieldSchema>>, events: ImportEvents): Promise<void> {
  for (const [className, fields] of schemas) {
    for (const problem of await registerSchema(target, className, fields)) events.note(`schema: ${problem}`);
  }
}

async function applyJoins(
  opts: ImportOptions,
  joins: readonly { entry: SourceEntry; rel: JoinEntry }[],
  known: { schemas: Map<string, Record<string, FieldSchema>>; hints?: Map<string, string>; bytes: ByteProgress; records: () => number },
  result: ImportResult,
  events: ImportEvents,
): Promise<void> {
  const resolve = async (owningClass: string, column: string, header: FileHeader | undefined): Promise<string | undefined> => {
    if (isClassName(header?.relatedClass)) return header.relatedClass;
    const hint = known.hints?.get(`${owningClass}.${column}`);
    if (hint) return hint;
    const schemaFields = known.schemas.get(owningClass);
    const fromSchema = schemaFields && Object.hasOwn(schemaFields, column) ? schemaFields[column] : undefined;
    if (fromSchema?.type === 'Relation') return fromSchema.className;
    const locked = opts.target ? fieldOf(await opts.target.classes.find(owningClass), column) : undefined;
    if (locked?.type === 'Relation') return locked.className;
    return KNOWN_RELATIONS[`${owningClass}.${column}`];
  };
  for (const { entry, rel } of joins) {
    const key = `${rel.owningClass}.${rel.column}`;
    const stats = (targetClass: string): RelationStats => {
      let s = result.relations.get(key);
      if (!s) result.relations.set(key, (s = { targetClass, read: 0, added: 0, skipped: 0, files: [] }));
      return s;
    };
    try {
      await readJoinFile(entry, rel, { target: opts.target, resolve, events, stats });
    } catch (err) {
      if (!(err instanceof BrokenInput)) throw err;
      result.broken ??= err.message;
    }
    events.progress(known.records(), entry.name, known.bytes);
  }
  if (!opts.target) return;
  for (const [key, s] of result.relations) {
    const [owningClass, column] = key.split('.');
    await markRelationOwners(opts.target, owningClass, column, s.targetClass);
  }
}
