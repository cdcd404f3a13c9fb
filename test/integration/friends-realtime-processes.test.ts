/**
 * Two real `larder` server processes on one PostgreSQL database act as one friends service:
 * online state and notifications cross processes, and a killed process's users go offline once
 * its lease runs out. PostgreSQL only (PGlite is one process by nature), so this suite runs when
 * TEST_DATABASE_URL is set, as the PostgreSQL half of every integration suite does.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TEST_KEYS } from './harness/engines.ts';
import { dropTestSchemas, startServer, stop, type Larder } from './harness/larder-process.ts';
import { eventually, openSocket, type TestSocket } from './harness/presence-helpers.ts';

const url = process.env.TEST_DATABASE_URL;

async function call(base: string, method: string, path: string, body?: unknown, session?: string, master = false): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': master ? `${TEST_KEYS.masterKey},master` : TEST_KEYS.appKey, 'content-type': 'application/json' };
  if (session) headers['x-lc-session'] = session;
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const isPath = (path: string, userId: string) => (m: any) => m?.header?.path === path && m.body?.userId === userId;

if (url) {
  describe('friends realtime across two larder processes [postgres]', () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const env = { DATABASE_URL: url, LARDER_DB_SCHEMA: schema, LARDER_APP_ID: TEST_KEYS.appId, LARDER_APP_KEY: TEST_KEYS.appKey, LARDER_MASTER_KEY: TEST_KEYS.masterKey, LARDER_HOST: '127.0.0.1', LARDER_POOL_SIZE: '3' };
    let procA: Larder;
    let procB: Larder;
    let baseA = '';
    let baseB = '';
    const sockets: TestSocket[] = [];

    before(async () => {
      ({ proc: procA, base: baseA } = await startServer(env));
      ({ proc: procB, base: baseB } = await startServer(env));
    });
    after(async () => {
      for (const s of sockets) await s.close().catch(() => {});
      stop(procA);
      stop(procB);
      await dropTestSchemas([schema]);
    });

    test('a client on A sees a friend on B come online and change presence; killing B takes the friend offline', async () => {
      const settings = await call(baseA, 'PUT', '/1.1/larder/settings', { richPresenceSync: true, friendModel: 'mutual', friendsLeaseMs: 1500 }, undefined, true);
      assert.equal(settings.status, 200, JSON.stringify(settings.body));
      const cfg = await call(baseA, 'POST', '/friend/v2/rich-presence/config/base-info', { enableRichMsg: true, enableOnlineMsg: true, richPresenceFields: [{ key: 'score', type: 'variable' }] }, undefined, true);
      assert.equal(cfg.status, 200, JSON.stringify(cfg.body));
      const signUp = async (base: string) => (await call(base, 'POST', '/1.1/users', { username: `u${randomBytes(5).toString('hex')}`, password: 'secret-pw' })).body;
      const a = await signUp(baseA);
      const b = await signUp(baseB);
      for (const [u, f] of [[a.objectId, b.objectId], [b.objectId, a.objectId]]) {
        const row = { user: { __type: 'Pointer', className: '_User', objectId: u }, followee: { __type: 'Pointer', className: '_User', objectId: f }, friendStatus: true };
        assert.equal((await call(baseA, 'POST', '/1.1/classes/_Followee', row, undefined, true)).status, 201);
      }
      // B has heard of the settings change (LISTEN/NOTIFY) once its endpoints answer.
      await eventually(async () => (await call(baseB, 'GET', '/friend/v1/rich-presence/config', undefined, b.sessionToken)).status === 200, 10000, 'B enabled');

      const sa = await openSocket(baseA, a.sessionToken);
      sockets.push(sa);
      // b sees a online through B (the shared online table).
      await eventually(async () => (await call(baseB, 'GET', `/friend/v1/rich-presence/users?ids=${a.objectId}`, undefined, b.sessionToken)).body.results?.[0]?.online === true, 5000, 'a online from B');
      const sb = await openSocket(baseB, b.sessionToken);
      sockets.push(sb);
      assert.deepEqual((await sa.next(isPath('friendship/friend/online', b.objectId))).body, { userId: b.objectId, online: true });

      const set = await call(baseB, 'POST', '/friend/v1/rich-presence/users/me', { config: [{ key: 'score', value: '42' }] }, b.sessionToken);
      assert.equal(set.status, 200, JSON.stringify(set.body));
      await sa.next(isPath('friendship/rich_presence/update', b.objectId));
      const seen = await call(baseA, 'GET', `/friend/v1/rich-presence/users?ids=${b.objectId}`, undefined, a.sessionToken);
      assert.deepEqual(seen.body.results, [{ online: true, richPresence: { score: '42' } }]);

      procB.child.kill('SIGKILL');
      await procB.exited(10000);
      const started = Date.now();
      assert.deepEqual((await sa.next(isPath('friendship/friend/online', b.objectId), 8000)).body, { userId: b.objectId, online: false });
      // Lease 1.5 s, renewed and swept every 0.5 s: offline well within a few seconds.
      assert.ok(Date.now() - started < 5000, `offline after ${Date.now() - started} ms`);
      const after = await call(baseA, 'GET', `/friend/v1/rich-presence/users?ids=${b.objectId}`, undefined, a.sessionToken);
      assert.equal(after.body.results[0].online, false);
    });
  });
}
