/**
 * Helpers of the import tests: run an import in-process against a harness, build export
 * archives (tar.gz) from files, and dump every class of an app through the API (master key) so
 * that two apps can be compared field for field.
 */
import { gzipSync } from 'node:zlib';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { runImport, type ImportResult } from '../../../src/migration/import-run.ts';
import type { Harness } from './engines.ts';

/** The hand-made LeanCloud export fixtures. */
export const FIXTURES = new URL('../../fixtures/leancloud-export/', import.meta.url).pathname;

/** An import's outcome plus every record error and note it reported. */
export interface TestImport {
  result: ImportResult;
  errors: string[];
  notes: string[];
}

/** Imports `path` into the harness's database, in-process (what `larder import` runs). */
export async function importInto(h: Harness, path: string, opts: { batchSize?: number; concurrency?: number; classes?: string[] } = {}): Promise<TestImport> {
  const errors: string[] = [];
  const notes: string[] = [];
  const result = await runImport({
    path,
    target: { db: h.db, classes: h.app.classes },
    batchSize: opts.batchSize,
    concurrency: opts.concurrency,
    classes: opts.classes ? new Set(opts.classes) : undefined,
    events: { recordError: (where, reason) => errors.push(`${where}: ${reason}`), note: (m) => notes.push(m), progress: () => {} },
  });
  return { result, errors, notes };
}

/** A fresh temporary folder. */
export function tempDir(prefix = 'larder-import-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A .tar.gz holding `files` (name -> content) at the top level, like LeanCloud's export. */
export async function tarGz(files: Record<string, string | Buffer>): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: unknown) => void chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    p.on('end', () => resolve());
    p.on('error', reject);
  });
  for (const [name, content] of Object.entries(files)) p.entry({ name }, content);
  p.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

/** The files of a fixture folder, name -> content. */
export function fixtureFiles(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(FIXTURES, folder)).sort()) out[name] = readFileSync(join(FIXTURES, folder, name), 'utf8');
  return out;
}

/** Writes `files` into a new temporary folder and returns it. */
export function folderOf(files: Record<string, string | Buffer>): string {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** Every object of the given classes as the master key reads them (with ACLs), by class then id. */
export async function dumpClasses(h: Harness, classes: readonly string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const c of classes) {
    const path = c === '_User' ? '/1.1/users' : c === '_Role' ? '/1.1/roles' : `/1.1/classes/${c}`;
    const res = await h.client.get(path, { order: 'objectId', limit: 1000, returnACL: 'true' }, { master: true });
    if (res.status !== 200) throw new Error(`dump ${c}: ${res.status} ${res.text}`);
    out[c] = res.body.results;
  }
  return out;
}

/** Members of a relation, as `$relatedTo` finds them (sorted objectIds). */
export async function relatedIds(h: Harness, owner: { className: string; objectId: string }, key: string, targetClass: string): Promise<string[]> {
  const path = targetClass === '_User' ? '/1.1/users' : targetClass === '_Role' ? '/1.1/roles' : `/1.1/classes/${targetClass}`;
  const where = { $relatedTo: { object: { __type: 'Pointer', ...owner }, key } };
  const res = await h.client.get(path, { where, order: 'objectId' }, { master: true });
  if (res.status !== 200) throw new Error(`relatedTo: ${res.status} ${res.text}`);
  return res.body.results.map((o: { objectId: string }) => o.objectId);
}
