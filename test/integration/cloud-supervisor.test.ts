// `larder --engine <dir>`: the real CLI starts the LeanEngine app (npm start) with the LEANCLOUD_*
// environment, prefixes its output, reads its hook list once it answers, serves its functions,
// and starts it again after a crash. On PostgreSQL the same with two workers: the cluster
// primary supervises one engine for both.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { ENGINE_APP_DIR } from './harness/engine-app.ts';
import { freePort, larder, type Larder } from './harness/larder-process.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function stopGently(l: Larder): Promise<void> {
  if (l.child.exitCode !== null || l.child.signalCode !== null) return;
  l.child.kill('SIGTERM');
  try {
    await l.exited(30_000);
  } catch {
    l.child.kill('SIGKILL');
  }
}

async function call(base: string, appId: string, appKey: string, fn: string): Promise<{ status: number; body: { result?: unknown; code?: number } }> {
  const res = await fetch(`${base}/1.1/functions/${fn}`, { method: 'POST', headers: { 'x-lc-id': appId, 'x-lc-key': appKey, 'content-type': 'application/json' }, body: '{"name":"cli"}' });
  return { status: res.status, body: (await res.json()) as { result?: unknown; code?: number } };
}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function supervised(env: Record<string, string>, args: string[] = []): Promise<void> {
  const port = await freePort();
  const keys = { LARDER_APP_ID: 'engineTestApp-larder', LARDER_APP_KEY: 'engineTestAppKey', LARDER_MASTER_KEY: 'engineTestMasterKey', LARDER_HOOK_KEY: 'engineTestHookKey' };
  const l = larder(['--engine', ENGINE_APP_DIR, '--port', String(port), ...args], { LARDER_HOST: '127.0.0.1', ENGINE_CRASH_AFTER_MS: '8000', ...keys, ...env });
  const base = `http://127.0.0.1:${port}`;
  try {
    // Start-up of the CLI can take minutes on a machine this busy.
    await l.waitFor(/app id: +(\S+)/, 600_000);
    const [appId, appKey, masterKey] = [keys.LARDER_APP_ID, keys.LARDER_APP_KEY, keys.LARDER_MASTER_KEY];
    await l.waitFor(/\[engine\] engine listening on \d+/, 300_000);
    // The hook list was read once the engine answered its ping.
    const hooks = await until('the hook list', async () => {
      const res = await fetch(`${base}/1.1/larder/engine`, { headers: { 'x-lc-id': appId, 'x-lc-key': `${masterKey},master` } });
      const body = (await res.json()) as { hooks?: string[] };
      return body.hooks?.includes('__before_save_for_Review') ? body.hooks : undefined;
    });
    assert.ok(hooks.includes('hello'));
    const first = await until('the engine', async () => {
      const r = await call(base, appId, appKey, 'hello');
      return r.status === 200 ? r : undefined;
    });
    assert.deepEqual(first.body, { result: 'hello cli' });
    // The engine exits after 8 s (ENGINE_CRASH_AFTER_MS); the supervisor starts it again.
    await l.waitFor(/engine: exited; starting it again/, 300_000);
    const again = await until('the restarted engine', async () => {
      const r = await call(base, appId, appKey, 'hello');
      return r.status === 200 ? r : undefined;
    });
    assert.deepEqual(again.body, { result: 'hello cli' });
    l.child.kill('SIGTERM');
    assert.equal(await l.exited(30_000), 0);
  } finally {
    await stopGently(l);
  }
}

describe('larder --engine (supervised LeanEngine app)', () => {
  test('embedded engine, one process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'larder-engine-'));
    dirs.push(dir);
    await supervised({ LARDER_DATA_DIR: dir, LARDER_ENGINE_REFRESH_SECONDS: '0' });
  });

  const PG_URL = process.env.TEST_DATABASE_URL;
  if (PG_URL) {
    const schema = `t_eng_${randomBytes(5).toString('hex')}`;
    after(async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });
    test('PostgreSQL, two workers: the primary supervises one engine for both', async () => {
      await supervised({ DATABASE_URL: PG_URL, LARDER_DB_SCHEMA: schema, LARDER_WORKERS: '2', LARDER_ENGINE_REFRESH_SECONDS: '0' });
    });
  }
});
