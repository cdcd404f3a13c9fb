// The commands an operator runs (docs/backup.md), as real processes on an embedded data dir:
// `larder backup`, `larder restore` (twice: the second is refused), `larder move --to` when
// TEST_DATABASE_URL is set, and the start-up warning for a new PostgreSQL database next to an
// embedded app.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createApp } from '../../src/app.ts';
import { orphanEmbeddedAppWarning } from '../../src/cli/orphan-embedded-app.ts';
import { createLogger } from '../../src/log.ts';
import { FILE_DEFAULTS } from '../../src/modules/files/files-options.ts';
import { defaultModules } from '../../src/modules/index.ts';
import { openApp } from '../../src/open-app.ts';
import { openDatabase } from '../../src/storage/open-database.ts';
import { TestClient } from './harness/client.ts';
import { TEST_KEYS } from './harness/engines.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', LARDER_LOG_LEVEL: 'silent', ...env }, timeout: 180_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Opens the embedded app of a data dir in this process, runs `work` with a client, closes it. */
async function withEmbeddedApp<T>(dataDir: string, work: (client: TestClient) => Promise<T>): Promise<T> {
  mkdirSync(join(dataDir, 'pglite'), { recursive: true });
  const db = await openDatabase({ dataDir: join(dataDir, 'pglite'), schema: 'larder', poolSize: 1, statementTimeoutMs: 20000, embeddedSliceMs: 0 });
  try {
    const { app } = await openApp({ db, keys: TEST_KEYS, masterSignWindowMs: 900000 });
    const server = await createApp(app, { logger: createLogger('silent'), modules: defaultModules({ files: { backend: 'local', dir: join(dataDir, 'files'), ...FILE_DEFAULTS } }) });
    try {
      return await work(new TestClient(server));
    } finally {
      await server.close();
    }
  } finally {
    await db.close();
  }
}

describe('larder backup / restore / move (commands)', () => {
  let work: string;
  let objectId: string;
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'larder-backup-cli-'));
    await withEmbeddedApp(join(work, 'a'), async (client) => {
      const res = await client.request({ method: 'POST', url: '/1.1/classes/Note', body: { text: 'from the embedded app' }, master: true });
      assert.equal(res.status, 201, res.text);
      objectId = res.body.objectId;
    });
    // A file of the local backend, as an upload leaves it.
    mkdirSync(join(work, 'a', 'files', 'ab'), { recursive: true });
    writeFileSync(join(work, 'a', 'files', 'ab', 'note.txt'), 'file bytes');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('backup, then restore into a new data dir; a second restore is refused (exit 2)', async () => {
    const archive = join(work, 'app.tar.gz');
    const b = await cli(['backup', archive], { LARDER_DATA_DIR: join(work, 'a') });
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stdout, /Backed up \d+ tables \(\d+ rows\) and 1 files of the pglite database/);
    const r = await cli(['restore', archive], { LARDER_DATA_DIR: join(work, 'b') });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Restored \d+ tables/);
    assert.equal(readFileSync(join(work, 'b', 'files', 'ab', 'note.txt'), 'utf8'), 'file bytes');
    await withEmbeddedApp(join(work, 'b'), async (client) => {
      const got = await client.request({ url: `/1.1/classes/Note/${objectId}`, master: true });
      assert.equal(got.body.text, 'from the embedded app');
    });
    const again = await cli(['restore', archive], { LARDER_DATA_DIR: join(work, 'b') });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /restore failed, nothing was written: .*(already holds|not empty)/);
    const bad = await cli(['backup'], { LARDER_DATA_DIR: join(work, 'a') });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /takes one archive path/);
  });

  test('move --to a PostgreSQL schema (skipped only without TEST_DATABASE_URL)', { skip: !process.env.TEST_DATABASE_URL }, async () => {
    const url = process.env.TEST_DATABASE_URL ?? '';
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const m = await cli(['move', '--to', url, '--to-schema', schema], { LARDER_DATA_DIR: join(work, 'a') });
      assert.equal(m.code, 0, m.stderr);
      assert.match(m.stdout, /Moved \d+ tables/);
      const db = await openDatabase({ databaseUrl: url, schema, poolSize: 2, statementTimeoutMs: 20000 });
      try {
        const { app, generatedKeys } = await openApp({ db, keys: {}, masterSignWindowMs: 900000 });
        assert.deepEqual(generatedKeys, []);
        assert.equal(app.keys.masterKey, TEST_KEYS.masterKey);
        const server = await createApp(app, { logger: createLogger('silent') });
        const got = await new TestClient(server).request({ url: `/1.1/classes/Note/${objectId}`, master: true });
        assert.equal(got.body.text, 'from the embedded app');
        await server.close();
      } finally {
        await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await db.close();
      }
  });

  test('start-up warning: a new PostgreSQL database next to an embedded app', () => {
    const withApp = { databaseUrl: 'postgres://x@h/db', dataDir: join(work, 'a') };
    assert.match(orphanEmbeddedAppWarning(withApp, true).join('\n'), /holds an app on the embedded engine[\s\S]*larder move --to/);
    assert.deepEqual(orphanEmbeddedAppWarning(withApp, false), [], 'an existing PostgreSQL app: nothing to say');
    assert.deepEqual(orphanEmbeddedAppWarning({ databaseUrl: undefined, dataDir: join(work, 'a') }, true), []);
    assert.deepEqual(orphanEmbeddedAppWarning({ ...withApp, dataDir: join(work, 'none') }, true), []);
  });
});
