import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { invalidationsReceived } from '../../src/auth/cache-invalidation.ts';
import { adminCommand } from '../../src/cli/admin-command.ts';
import { CommandError } from '../../src/cli/command-error.ts';
import { loadConfig } from '../../src/config.ts';
import { forEachEngine, startHarness, type Harness } from './harness/engines.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

/** Runs the larder CLI with the given environment; resolves with stdout, or the failure. */
async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LARDER_LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function waitForInvalidation(h: Harness, before: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (invalidationsReceived(h.app) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.ok(invalidationsReceived(h.app) > before, 'the other app heard the change');
}

const NOT_MASTER = { code: 1, error: 'The request must be signed by master key.' };

forEachEngine('admin endpoint', (h) => {
  test('every admin route needs the master key', async () => {
    const c = h().client;
    for (const res of [
      await c.get('/1.1/larder/settings'),
      await c.put('/1.1/larder/settings', { includeACLInQueries: true }),
      await c.get('/1.1/larder/classes/_User/permissions'),
      await c.put('/1.1/larder/classes/_User/permissions', { find: { '*': true } }),
      await c.get('/1.1/larder/classes/_User/defaultACL'),
      await c.put('/1.1/larder/classes/Foo/defaultACL', { defaultACL: null }),
    ]) {
      assert.deepEqual({ status: res.status, body: res.body }, { status: 403, body: NOT_MASTER });
    }
    const perms = await c.get('/1.1/larder/classes/_User/permissions', undefined, { master: true });
    assert.deepEqual(perms.body.find, { users: [], roles: [] }, 'the refused PUT changed nothing');
  });

  test('settings: read, change (validated, unknown keys refused), reset with null', async () => {
    const c = h().client;
    const before = await c.get('/1.1/larder/settings', undefined, { master: true });
    assert.equal(before.status, 200);
    assert.equal(before.body.includeACLInQueries, false);
    for (const bad of [{ nope: 1 }, { includeACLInQueries: 'yes' }, { includeACLInQueries: 1 }, [], 'x']) {
      const res = await c.put('/1.1/larder/settings', bad, { master: true });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.code, 1, JSON.stringify(bad));
    }
    const proto = await c.request({ method: 'PUT', url: '/1.1/larder/settings', payload: '{"__proto__":{"includeACLInQueries":true}}', headers: { 'content-type': 'application/json' }, master: true });
    assert.equal(proto.status, 400);
    assert.equal((await c.get('/1.1/larder/settings', undefined, { master: true })).body.includeACLInQueries, false);
    const changed = await c.put('/1.1/larder/settings', { includeACLInQueries: true }, { master: true });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.includeACLInQueries, true);
    // The setting takes effect: returnACL now works without the master key.
    const id = (await c.post('/1.1/classes/AdminAcl', { v: 1 })).body.objectId;
    assert.deepEqual((await c.get(`/1.1/classes/AdminAcl/${id}`, { returnACL: true })).body.ACL, { '*': { read: true, write: true } });
    const reset = await c.put('/1.1/larder/settings', { includeACLInQueries: null }, { master: true });
    assert.equal(reset.body.includeACLInQueries, false);
    assert.equal((await c.get(`/1.1/classes/AdminAcl/${id}`, { returnACL: true })).body.ACL, undefined);
  });

  test('permissions: the original format is validated; changes merge per operation', async () => {
    const c = h().client;
    for (const bad of [
      { find: { '*': false } },
      { find: { '*': true, onlySignInUsers: true } },
      { find: { onlySignInUsers: 'yes' } },
      { find: { users: 'abc' } },
      { find: { users: ['ok', 'not ok$'] } },
      { find: { roles: [1] } },
      { find: {} },
      { read: { '*': true } },
      { find: true },
      [],
    ]) {
      const res = await c.put('/1.1/larder/classes/AdminPerms/permissions', bad, { master: true });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.code, 1, JSON.stringify(bad));
    }
    const set = await c.put('/1.1/larder/classes/AdminPerms/permissions', { find: { onlySignInUsers: true }, delete: { users: ['u1'], roles: ['Admins'] } }, { master: true });
    assert.deepEqual(set.body, {
      get: { '*': true },
      find: { onlySignInUsers: true },
      create: { '*': true },
      update: { '*': true },
      delete: { users: ['u1'], roles: ['Admins'] },
      add_fields: { '*': true },
    });
    const more = await c.put('/1.1/larder/classes/AdminPerms/permissions', { update: { roles: ['Admins'] } }, { master: true });
    assert.deepEqual(more.body.find, { onlySignInUsers: true });
    assert.deepEqual(more.body.update, { users: [], roles: ['Admins'] });
    assert.deepEqual((await c.get('/1.1/larder/classes/AdminPerms/permissions', undefined, { master: true })).body, more.body);
    const unknown = await c.get('/1.1/larder/classes/NoSuchClass/permissions', undefined, { master: true });
    assert.deepEqual([unknown.status, unknown.body.code], [404, 101]);
    for (const name of ['_larder_classes', 'bad-name', '_Join']) {
      const res = await c.put(`/1.1/larder/classes/${name}/permissions`, { find: { '*': true } }, { master: true });
      assert.deepEqual([res.status, res.body.code], [400, 103], name);
    }
  });

  test('default ACL: validated like any ACL', async () => {
    const c = h().client;
    for (const bad of [{ defaultACL: { '*': { read: 'yes' } } }, { defaultACL: 'x' }, { acl: {} }, {}]) {
      const res = await c.put('/1.1/larder/classes/AdminDefault/defaultACL', bad, { master: true });
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    assert.deepEqual((await c.put('/1.1/larder/classes/AdminDefault/defaultACL', { defaultACL: { '*': { read: true } } }, { master: true })).body, { defaultACL: { '*': { read: true } } });
    assert.deepEqual((await c.get('/1.1/larder/classes/AdminDefault/defaultACL', undefined, { master: true })).body, { defaultACL: { '*': { read: true } } });
  });

  test('settings and permission changes reach another app on the same database', async () => {
    const b = await startHarness(h().engine, { sameDatabaseAs: h() });
    try {
      await h().client.post('/1.1/classes/AdminShared', { v: 1 }, { master: true });
      assert.equal((await b.client.get('/1.1/classes/AdminShared')).status, 200);
      let seen = invalidationsReceived(b.app);
      await h().client.put('/1.1/larder/classes/AdminShared/permissions', { find: { users: [], roles: [] } }, { master: true });
      await waitForInvalidation(b, seen);
      assert.equal((await b.client.get('/1.1/classes/AdminShared')).status, 403);
      seen = invalidationsReceived(b.app);
      await h().client.put('/1.1/larder/settings', { includeACLInQueries: true }, { master: true });
      await waitForInvalidation(b, seen);
      assert.equal(b.app.settings.includeACLInQueries, true);
      await h().client.put('/1.1/larder/settings', { includeACLInQueries: false }, { master: true });
    } finally {
      await b.stop();
    }
  });

  test('CLI: larder settings / permissions / default-acl get|set', async () => {
    let env: Record<string, string>;
    let dir: string | undefined;
    if (h().engine === 'postgres') {
      env = { DATABASE_URL: process.env.TEST_DATABASE_URL ?? '', LARDER_DB_SCHEMA: h().db.schema };
    } else {
      dir = mkdtempSync(join(tmpdir(), 'larder-cli-'));
      env = { LARDER_DATA_DIR: dir };
    }
    // The commands run in this process (spawning node + tsx per command is slow); one real
    // spawn below checks that main.ts dispatches to them.
    const config = loadConfig({ ...env, LARDER_LOG_LEVEL: 'silent' }, {});
    const lines: string[] = [];
    const larder = async (...args: string[]) => {
      lines.length = 0;
      const [command, ...rest] = args;
      await adminCommand(config, command, rest, (line) => lines.push(line));
      return JSON.parse(lines.join('\n')) as Record<string, unknown>;
    };
    try {
      const seen = invalidationsReceived(h().app);
      assert.deepEqual((await larder('permissions', 'set', 'CliClass', '{"create":{"onlySignInUsers":true}}')).create, { onlySignInUsers: true });
      assert.deepEqual((await larder('permissions', 'get', 'CliClass')).create, { onlySignInUsers: true });
      if (h().engine === 'postgres') {
        // The running app heard the command's change.
        await waitForInvalidation(h(), seen);
        assert.equal((await h().client.post('/1.1/classes/CliClass', { v: 1 })).status, 403);
      }
      assert.equal((await larder('settings', 'set', 'includeACLInQueries', 'true')).includeACLInQueries, true);
      assert.equal((await larder('settings', 'get')).includeACLInQueries, true);
      assert.equal((await larder('settings', 'set', 'includeACLInQueries', 'null')).includeACLInQueries, false);
      assert.deepEqual(await larder('default-acl', 'set', 'CliClass', '{"creator":{"read":true}}'), { defaultACL: { creator: { read: true } } });
      assert.deepEqual(await larder('default-acl', 'get', 'CliClass'), { defaultACL: { creator: { read: true } } });
      await assert.rejects(larder('settings', 'set', 'nope', '1'), (e) => e instanceof CommandError && /unknown setting/.test(e.message));
      await assert.rejects(larder('permissions', 'set', 'CliClass', '{nope'), (e) => e instanceof CommandError && /not valid JSON/.test(e.message));
      await assert.rejects(larder('permissions', 'set', 'CliClass', '{"find":{"*":false}}'), CommandError);
      await assert.rejects(larder('permissions'), (e) => e instanceof CommandError && /larder permissions set/.test(e.message));
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });

  test('CLI: main dispatches the admin commands (usage mistakes exit 2)', async () => {
    const usage = await cli(['permissions', 'frobnicate'], {});
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /larder permissions set <class>/);
  });
});
