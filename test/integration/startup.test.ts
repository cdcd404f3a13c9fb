import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { SETTINGS } from '../../src/config.ts';
import { freePort, getJson, larder, runLarder, stop, waitForHealth } from './harness/larder-process.ts';

// These tests run the real CLI (`node --import tsx src/main.ts`) as a child process.
/** A clean shutdown has to finish within this (start-up may take much longer on a busy machine). */
const SHUTDOWN_MS = 30_000;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'larder-startup-'));
  dirs.push(d);
  return d;
}

describe('start-up on the embedded engine', () => {
  const dataDir = tempDir();
  let appId = '';

  test('first start prints the URL, app id, data location and the generated keys; /health answers', async () => {
    const port = await freePort();
    const l = larder([], { LARDER_DATA_DIR: dataDir, LARDER_PORT: String(port) });
    try {
      await l.waitFor(/Keep them safe, then delete that file/);
      const out = l.stdout();
      assert.match(out, new RegExp(`Larder is listening on http://127\\.0\\.0\\.1:${port}`));
      appId = out.match(/app id: +(\S+)/)?.[1] ?? '';
      assert.match(appId, /^[A-Za-z0-9]{24}-larder$/);
      assert.ok(out.includes(`embedded PGlite in ${dataDir}`), out);
      assert.match(out, /workers: +1/);
      // Standard output is a pipe here (a log collector), not a terminal: the keys go to a 0600 file.
      const keyFile = join(dataDir, 'larder-keys.env');
      assert.ok(out.includes(`they are in ${keyFile} (mode 0600)`), out);
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const keys = Object.fromEntries([...readFileSync(keyFile, 'utf8').matchAll(/^(LARDER_\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
      assert.equal(keys.LARDER_APP_ID, appId);
      assert.match(keys.LARDER_APP_KEY, /^[A-Za-z0-9]{24}$/);
      assert.match(keys.LARDER_MASTER_KEY, /^[A-Za-z0-9]{24}$/);
      for (const secret of [keys.LARDER_APP_KEY, keys.LARDER_MASTER_KEY]) {
        assert.equal(out.includes(secret), false, 'no key in the output stream');
        assert.equal(l.stderr().includes(secret), false, 'no key on stderr');
      }
      assert.match(out, /Only this machine can connect \(host 127\.0\.0\.1\)\. To accept other machines, set LARDER_HOST=0\.0\.0\.0/);
      // The master key from the file works.
      const master = await fetch(`http://127.0.0.1:${port}/1.1/schemas`, { headers: { 'x-lc-id': appId, 'x-lc-key': `${keys.LARDER_MASTER_KEY},master` } });
      assert.equal(master.status, 200);
      const health = await getJson(`http://127.0.0.1:${port}/health`);
      assert.deepEqual(health, { status: 200, body: { status: 'ok', engine: 'pglite' } });
      assert.equal(readFileSync(join(dataDir, 'larder.lock'), 'utf8'), String(l.child.pid));

      // A second process on the same data directory refuses to start, naming the holder.
      const other = larder([], { LARDER_DATA_DIR: dataDir, LARDER_PORT: String(await freePort()) });
      assert.equal(await other.exited(), 1);
      assert.match(other.stderr(), new RegExp(`data directory ${dataDir} is in use by process ${l.child.pid}`));
      assert.equal(other.stdout().includes('listening'), false);

      l.child.kill('SIGTERM');
      assert.equal(await l.exited(SHUTDOWN_MS), 0);
      assert.equal(existsSync(join(dataDir, 'larder.lock')), false, 'lock file removed on shutdown');
    } finally {
      stop(l);
    }
  });

  test('a second start keeps the app id and prints no keys', async () => {
    assert.ok(appId, 'needs the first test');
    const port = await freePort();
    const l = larder(['--data-dir', dataDir, '--port', String(port)], {});
    try {
      await l.waitFor(/workers: +1/);
      await waitForHealth(`http://127.0.0.1:${port}`);
      assert.equal(l.stdout().match(/app id: +(\S+)/)?.[1], appId);
      assert.doesNotMatch(l.stdout(), /New keys/);
      l.child.kill('SIGINT');
      assert.equal(await l.exited(SHUTDOWN_MS), 0);
    } finally {
      stop(l);
    }
  });

  test('a lock left by a dead process is taken over', async () => {
    writeFileSync(join(dataDir, 'larder.lock'), '999999999');
    const port = await freePort();
    const l = larder([], { LARDER_DATA_DIR: dataDir, LARDER_PORT: String(port) });
    try {
      await l.waitFor(/workers:/);
      assert.equal(readFileSync(join(dataDir, 'larder.lock'), 'utf8'), String(l.child.pid));
      l.child.kill('SIGTERM');
      assert.equal(await l.exited(SHUTDOWN_MS), 0);
    } finally {
      stop(l);
    }
  });

  test('a port in use stops the start with exit code 1 and leaves no lock behind', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const addr = blocker.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const l = larder([], { LARDER_DATA_DIR: dataDir, LARDER_PORT: String(port), LARDER_HOST: '127.0.0.1' });
    try {
      assert.equal(await l.exited(), 1);
      assert.match(l.stderr(), /larder: listen EADDRINUSE/);
      assert.equal(existsSync(join(dataDir, 'larder.lock')), false);
    } finally {
      stop(l);
      blocker.close();
    }
  });

  test('SIGTERM lets a request in flight finish, then exits 0 and releases the lock', async () => {
    const keys = { LARDER_APP_ID: 'drainApp', LARDER_APP_KEY: 'drainKey', LARDER_MASTER_KEY: 'drainMaster' };
    const port = await freePort();
    const l = larder([], { ...keys, LARDER_DATA_DIR: dataDir, LARDER_PORT: String(port) });
    try {
      await l.waitFor(/workers:/);
      await waitForHealth(`http://127.0.0.1:${port}`);
      const body = JSON.stringify({ drained: true });
      // Send the headers and half the body, signal the server, then finish the body.
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request({
          host: '127.0.0.1', port, method: 'POST', path: '/1.1/classes/Drain',
          headers: { 'x-lc-id': 'drainApp', 'x-lc-key': 'drainKey', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 5));
        setTimeout(() => {
          l.child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(5)), 500);
        }, 200);
      });
      const res = await response;
      assert.equal(res.status, 201, res.text);
      assert.match(JSON.parse(res.text).objectId, /^[0-9a-f]{24}$/);
      assert.equal(await l.exited(), 0);
      assert.equal(existsSync(join(dataDir, 'larder.lock')), false);
    } finally {
      stop(l);
    }
  });
});

describe('command line and configuration', () => {
  test('--help lists every setting and exits 0', () => {
    const res = runLarder(['--help'], {});
    assert.equal(res.status, 0, res.stderr);
    for (const s of SETTINGS) {
      assert.ok(res.stdout.includes(s.flag), `--help lacks ${s.flag}`);
      assert.ok(res.stdout.includes(s.env), `--help lacks ${s.env}`);
    }
    assert.match(res.stdout, /larder index add <class> <field>/);
  });

  const bad: [string, string[], Record<string, string>, RegExp][] = [
    ['a non-numeric port', [], { LARDER_PORT: 'abc' }, /configuration error: environment: LARDER_PORT must be a non-negative integer, got "abc"/],
    ['an unknown flag', ['--prot', '8080'], {}, /configuration error: unknown option --prot/],
    ['a flag without its value', ['--port'], {}, /--port needs a value/],
    ['a missing config file', ['--config', '/nonexistent/larder.json'], {}, /configuration error: config file not found: \/nonexistent\/larder\.json/],
    ['a bad log level', ['--log-level', 'loud'], {}, /LARDER_LOG_LEVEL must be one of/],
    ['an unknown command', ['frobnicate'], {}, /unknown command 'frobnicate'/],
  ];
  for (const [name, args, env, message] of bad) {
    test(`${name}: exit code 2 and a clear message`, () => {
      const res = runLarder(args, { LARDER_DATA_DIR: tempDir(), ...env });
      assert.equal(res.status, 2, res.stderr);
      assert.match(res.stderr, message);
      assert.doesNotMatch(res.stdout, /listening/);
    });
  }

  test('flags beat environment variables, which beat the config file', async () => {
    const dir = tempDir();
    const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()];
    const file = join(dir, 'larder.json');
    writeFileSync(file, JSON.stringify({ LARDER_PORT: p1, LARDER_HOST: '127.0.0.1', dataDir: join(dir, 'from-file'), appId: 'fileAppId' }));
    const l = larder(['--config', file, '--port', String(p3)], { LARDER_PORT: String(p2), LARDER_APP_ID: 'envAppId' });
    try {
      await l.waitFor(/workers:/);
      assert.match(l.stdout(), new RegExp(`listening on http://127\\.0\\.0\\.1:${p3} `));
      assert.match(l.stdout(), /app id: +envAppId/);
      assert.ok(l.stdout().includes(`embedded PGlite in ${join(dir, 'from-file')}`));
      await waitForHealth(`http://127.0.0.1:${p3}`);
      l.child.kill('SIGTERM');
      assert.equal(await l.exited(SHUTDOWN_MS), 0);
    } finally {
      stop(l);
    }
  });
});

const PG_URL = process.env.TEST_DATABASE_URL;
// Declared only when PostgreSQL is available, like forEachEngine: nothing is skipped silently.
if (PG_URL) {
  describe('start-up on PostgreSQL', () => {
    const schema = `t_start_${randomBytes(5).toString('hex')}`;
    const env = { DATABASE_URL: PG_URL, LARDER_DB_SCHEMA: schema, LARDER_DATA_DIR: tempDir() };
    const orphanSchemas: string[] = [];
    after(async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      for (const s of orphanSchemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      await client.end();
    });

    test('starts on a fresh schema, answers /health, and stops with 0', async () => {
      const port = await freePort();
      const l = larder([], { ...env, LARDER_PORT: String(port) });
      try {
        await l.waitFor(/Keep them safe, then delete that file/);
        assert.equal(statSync(join(env.LARDER_DATA_DIR, 'larder-keys.env')).mode & 0o777, 0o600);
        assert.match(l.stdout(), new RegExp(`data: +PostgreSQL .*\\(schema ${schema}\\)`));
        assert.doesNotMatch(l.stdout(), /postgres:\/\/postgres@/, 'credentials in the URL are masked');
        const health = await getJson(`http://127.0.0.1:${port}/health`);
        assert.deepEqual(health, { status: 200, body: { status: 'ok', engine: 'postgres' } });
        l.child.kill('SIGTERM');
        assert.equal(await l.exited(SHUTDOWN_MS), 0);
      } finally {
        stop(l);
      }
    });

    test('a new schema while the data dir holds an embedded app: the real serve warns at start-up, once', async () => {
      const port = await freePort();
      const dataDir = tempDir();
      // What the embedded engine leaves in the data dir (the warning looks for its PG_VERSION).
      mkdirSync(join(dataDir, 'pglite'));
      writeFileSync(join(dataDir, 'pglite', 'PG_VERSION'), '17\n');
      const own = { ...env, LARDER_DB_SCHEMA: `${schema}_orphan`, LARDER_DATA_DIR: dataDir, LARDER_PORT: String(port) };
      orphanSchemas.push(own.LARDER_DB_SCHEMA);
      const first = larder([], own);
      try {
        await first.waitFor(/holds an app on the embedded engine[\s\S]*larder move --to/);
        assert.match(first.stdout(), new RegExp(`WARNING: this PostgreSQL database is new \\(empty until now\\), but ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds an app`));
        first.child.kill('SIGTERM');
        assert.equal(await first.exited(SHUTDOWN_MS), 0);
      } finally {
        stop(first);
      }
      // The schema is no longer new: a second start says nothing.
      const second = larder([], own);
      try {
        await second.waitFor(/Larder is listening/);
        assert.doesNotMatch(second.stdout(), /holds an app on the embedded engine/);
        second.child.kill('SIGTERM');
        assert.equal(await second.exited(SHUTDOWN_MS), 0);
      } finally {
        stop(second);
      }
    });

    test('--workers 2 starts two workers that both listen and serve; a dead worker is replaced', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      // At info level every worker logs "Server listening" with its pid.
      // A schema and data dir of its own, so that the test also runs alone (--test-name-pattern).
      const own = { ...env, LARDER_DB_SCHEMA: `${schema}_workers`, LARDER_DATA_DIR: tempDir() };
      orphanSchemas.push(own.LARDER_DB_SCHEMA);
      const l = larder(['--workers', '2'], { ...own, LARDER_PORT: String(port), LARDER_LOG_LEVEL: 'info' });
      const listeners = () => new Set([...l.stdout().matchAll(/"pid":(\d+),[^\n]*"msg":"Server listening at/g)].map((m) => Number(m[1])));
      const children = () => spawnSync('pgrep', ['-P', String(l.child.pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number).sort();
      try {
        await l.waitFor(/workers: +2/, 120_000);
        const workers = children();
        assert.equal(workers.length, 2);
        // The banner comes only after both workers listen: both are in the cluster's round robin.
        // A worker's own "Server listening" log line is written by its logger, which may reach
        // the shared stdout a moment after the primary saw the listening event; give it 10 s.
        for (let t = Date.now(); listeners().size < 2 && Date.now() - t < 10_000; ) await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual([...listeners()].sort(), workers);
        for (let i = 0; i < 20; i++) assert.equal((await getJson(`${base}/health`)).status, 200);
        // A worker that dies is replaced, and the server keeps answering.
        process.kill(workers[0], 'SIGKILL');
        await l.waitFor(new RegExp(`"pid":(?!${workers.join('|')})\\d+,[^\\n]*"msg":"Server listening at`), 120_000);
        await waitForHealth(base);
        for (let i = 0; i < 10; i++) assert.equal((await getJson(`${base}/health`)).status, 200);
        const now = children();
        assert.equal(now.length, 2);
        assert.ok(!now.includes(workers[0]) && now.includes(workers[1]));
        const crash = l.stdout().split('\n').find((line) => line.includes('worker exited; starting a new one'));
        assert.ok(crash, l.stdout());
        const record = JSON.parse(crash) as Record<string, unknown>;
        assert.deepEqual([record.workerPid, record.exitCode, record.signal, record.pid], [workers[0], null, 'SIGKILL', l.child.pid]);
        assert.equal((crash.match(/"pid"/g) ?? []).length, 1, 'pid appears once');
        l.child.kill('SIGTERM');
        assert.equal(await l.exited(SHUTDOWN_MS), 0);
        assert.deepEqual(children(), [], 'no worker left behind');
      } finally {
        stop(l);
      }
    });

    test('with workers, a port in use stops the start with exit code 1 instead of restarting workers', async () => {
      const blocker = createServer().listen(0, '127.0.0.1');
      await new Promise((r) => blocker.once('listening', r));
      const addr = blocker.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      const l = larder(['--workers', '2'], { ...env, LARDER_PORT: String(port) });
      try {
        assert.equal(await l.exited(), 1);
        assert.match(l.stderr(), /EADDRINUSE/);
        assert.doesNotMatch(l.stdout(), /listening on/);
      } finally {
        stop(l);
        blocker.close();
      }
    });
  });
}
