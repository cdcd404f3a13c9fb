import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { FileProgress } from './export-progress.ts';
import { spoolIntact, spoolPages, type SpoolPage } from './spool-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'spool-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Pages of two numbered lines each, up to `total` lines. */
function pages(total: number) {
  return async (cursor: string | undefined): Promise<SpoolPage | undefined> => {
    const from = cursor === undefined ? 0 : Number(cursor) + 1;
    if (from >= total) return undefined;
    const n = Math.min(2, total - from);
    const lines = Array.from({ length: n }, (_, i) => `${from + i}\n`).join('');
    return { text: lines, rows: n, cursor: String(from + n - 1) };
  };
}

test('writes the header and every page, checkpointing after each', async () => {
  const path = join(dir, 'a');
  const states: FileProgress[] = [];
  const end = await spoolPages({ path, header: '#h\n', next: pages(5), between: async () => {}, checkpoint: async (s) => void states.push(s) });
  assert.equal(readFileSync(path, 'utf8'), '#h\n0\n1\n2\n3\n4\n');
  assert.deepEqual(end, { bytes: 13, rows: 5, cursor: '4', complete: true });
  assert.equal(states.length, 4);
  assert.ok(await spoolIntact(path, end));
});

test('a resumed file is cut back to its checkpoint and continues after its cursor', async () => {
  const path = join(dir, 'b');
  // The crashed run had checkpointed 2 rows, then written half a page more.
  writeFileSync(path, '#h\n0\n1\n2\n3');
  const end = await spoolPages({ path, header: '#h\n', resume: { bytes: 7, rows: 2, cursor: '1', complete: false }, next: pages(5), between: async () => {}, checkpoint: async () => {} });
  assert.equal(readFileSync(path, 'utf8'), '#h\n0\n1\n2\n3\n4\n');
  assert.equal(end.rows, 5);
});

test('a file shorter than its checkpoint (lost, or on another disk) starts over', async () => {
  const path = join(dir, 'c');
  writeFileSync(path, '#h\n0');
  const end = await spoolPages({ path, header: '#h\n', resume: { bytes: 7, rows: 2, cursor: '1', complete: false }, next: pages(3), between: async () => {}, checkpoint: async () => {} });
  assert.equal(readFileSync(path, 'utf8'), '#h\n0\n1\n2\n');
  assert.equal(end.rows, 3);
  assert.equal(await spoolIntact(join(dir, 'missing'), end), false);
});

test('a stop between pages leaves the file at its last checkpoint', async () => {
  const path = join(dir, 'd');
  let calls = 0;
  let last: FileProgress | undefined;
  await assert.rejects(spoolPages({
    path, header: '#h\n', next: pages(10),
    between: async () => {
      if (++calls === 3) throw new Error('stop');
    },
    checkpoint: async (s) => void (last = s),
  }), /stop/);
  assert.equal(last?.rows, 4);
  assert.equal(readFileSync(path, 'utf8').length, last?.bytes);
});
