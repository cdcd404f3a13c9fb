// The admin commands while a server holds the embedded data directory: they go to its admin API.
// Embedded engine only by nature: PostgreSQL has no data-directory lock, and there the commands
// open the database themselves (admin.test.ts runs them on both engines).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { freePort, larder, runLarder, stop, waitForHealth } from './harness/larder-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'larder-cli-running-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const KEYS = { LARDER_APP_ID: 'cliRunningApp', LARDER_APP_KEY: 'cliRunningKey', LARDER_MASTER_KEY: 'cliRunningMaster' };

describe('admin commands against a running embedded server', () => {
  test('settings, permissions, default-acl and index reach the server; mistakes exit 2; after shutdown they open the directory', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = larder([], { ...KEYS, LARDER_DATA_DIR: dir, LARDER_PORT: String(port) });
    const master = { 'x-lc-id': KEYS.LARDER_APP_ID, 'x-lc-key': `${KEYS.LARDER_MASTER_KEY},master`, 'content-type': 'application/json' };
    try {
      await server.waitFor(/workers: +1/);
      await waitForHealth(base);
      const adminFile = join(dir, 'larder-admin.json');
      assert.equal(statSync(adminFile).mode & 0o777, 0o600, 'the admin file names the master key: owner only');
      assert.equal((await fetch(`${base}/1.1/classes/CliGame`, { method: 'POST', headers: master, body: '{"score":1}' })).status, 201);
      const cmd = (...args: string[]) => runLarder(args, { LARDER_DATA_DIR: dir });

      const added = cmd('index', 'add', 'CliGame', 'score');
      assert.equal(added.status, 0, added.stderr);
      assert.match(added.stdout, /^Created index \S+ on CliGame\.score \(Number\)/);
      assert.match(cmd('index', 'add', 'CliGame', 'score').stdout, /already exists/);
      assert.match(cmd('index', 'list').stdout, /^CliGame\.score\t\S+\tNumber\t.*\tready$/m);
      assert.match(cmd('index', 'list', 'CliGame').stdout, /CliGame\.score/);

      const set = cmd('settings', 'set', 'includeACLInQueries', 'true');
      assert.equal(set.status, 0, set.stderr);
      assert.equal((JSON.parse(set.stdout) as Record<string, unknown>).includeACLInQueries, true);
      // The server itself has the new setting (it made the change).
      const settings = (await (await fetch(`${base}/1.1/larder/settings`, { headers: master })).json()) as Record<string, unknown>;
      assert.equal(settings.includeACLInQueries, true);

      assert.equal(cmd('permissions', 'set', 'CliGame', '{"create":{"onlySignInUsers":true}}').status, 0);
      assert.deepEqual((JSON.parse(cmd('permissions', 'get', 'CliGame').stdout) as Record<string, unknown>).create, { onlySignInUsers: true });
      assert.equal((await fetch(`${base}/1.1/classes/CliGame`, { method: 'POST', headers: { 'x-lc-id': KEYS.LARDER_APP_ID, 'x-lc-key': KEYS.LARDER_APP_KEY }, body: '{}' })).status, 403);
      assert.deepEqual(JSON.parse(cmd('default-acl', 'set', 'CliGame', '{"*":{"read":true}}').stdout), { defaultACL: { '*': { read: true } } });

      // Mistakes come back with the server's message and exit 2.
      const noClass = cmd('index', 'add', 'NoSuchCliClass', 'x');
      assert.equal(noClass.status, 2);
      assert.match(noClass.stderr, /NoSuchCliClass/);
      const badSetting = cmd('settings', 'set', 'nope', '1');
      assert.equal(badSetting.status, 2);
      assert.match(badSetting.stderr, /unknown setting/);
      const dropped = cmd('index', 'drop', 'CliGame', 'score');
      assert.match(dropped.stdout, /^Dropped index \S+ on CliGame\.score\./);

      server.child.kill('SIGTERM');
      assert.equal(await server.exited(30_000), 0);
      assert.equal(existsSync(adminFile), false, 'removed on shutdown');
      // With no server, the command opens the directory itself and sees the same data.
      const offline = cmd('settings', 'get');
      assert.equal(offline.status, 0, offline.stderr);
      assert.equal((JSON.parse(offline.stdout) as Record<string, unknown>).includeACLInQueries, true);
    } finally {
      stop(server);
    }
  });
});
