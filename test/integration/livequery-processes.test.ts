/**
 * Two real `larder` processes on one PostgreSQL database act as one LiveQuery service: a client
 * connected to A gets the events of writes served by B; when A is killed, the client logs in
 * on B and first receives what happened while it was away; once the reconnect window has
 * passed after a crash, the subscriptions of a client that never came back are removed.
 * PostgreSQL only (PGlite is one process by nature): it runs when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TEST_KEYS } from './harness/engines.ts';
import { dropTestSchemas, startServer, type Larder } from './harness/larder-process.ts';
import { CommandType, openRawClient, type RawLiveClient } from './harness/livequery-client.ts';

const url = process.env.TEST_DATABASE_URL;
const WINDOW_MS = 4000;
const LEASE_MS = 1500;

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey, 'content-type': 'application/json' };
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function login(base: string, id: string): Promise<RawLiveClient> {
  const route = await (await fetch(`${base}/v1/route?appId=${TEST_KEYS.appId}`)).json();
  const c = await openRawClient(route.server, 'lc.protobuf2.3');
  c.send({ cmd: CommandType.login, i: 1, appId: TEST_KEYS.appId, installationId: id, service: 1 });
  await c.next((m) => m.i === 1 && m.cmd === CommandType.loggedin);
  return c;
}

const pushOf = (m: Record<string, any>) => JSON.parse(m.dataMessage.msg[0].data);

if (url) {
  describe('livequery across two larder processes [postgres]', () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const env = {
      DATABASE_URL: url, LARDER_DB_SCHEMA: schema, LARDER_APP_ID: TEST_KEYS.appId, LARDER_APP_KEY: TEST_KEYS.appKey, LARDER_MASTER_KEY: TEST_KEYS.masterKey,
      LARDER_HOST: '127.0.0.1', LARDER_POOL_SIZE: '3', LARDER_LIVEQUERY_WINDOW_MS: String(WINDOW_MS), LARDER_LIVEQUERY_LEASE_MS: String(LEASE_MS),
    };
    let procA: Larder;
    let procB: Larder;
    let baseA = '';
    let baseB = '';
    const clients: RawLiveClient[] = [];

    before(async () => {
      ({ proc: procA, base: baseA } = await startServer(env));
      ({ proc: procB, base: baseB } = await startServer(env));
    });
    after(async () => {
      for (const c of clients) await c.close().catch(() => {});
      for (const p of [procA, procB]) if (p.child.exitCode === null) p.child.kill('SIGKILL');
      await dropTestSchemas([schema]);
    });

    test('a process announces its pushes to one started after it (client on B, written through A)', async () => {
      // A process alone sends no notifications; A must see B's lease and announce to it.
      const id = `sub-${randomBytes(6).toString('hex')}`;
      const onB = await login(baseB, id);
      clients.push(onB);
      const sub = await call(baseA, 'POST', '/1.1/LiveQuery/subscribe', { query: { className: 'LqTwoLater', where: { room: 'r' } }, id });
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      const written = await call(baseA, 'POST', '/1.1/classes/LqTwoLater', { room: 'r' });
      assert.equal(written.status, 201, JSON.stringify(written.body));
      const p = pushOf(await onB.next((m) => m.cmd === CommandType.data));
      assert.deepEqual([p.op, p.object.objectId, p.query_id], ['create', written.body.objectId, sub.body.query_id]);
    });

    test('events cross processes; after a crash the client gets what it missed on the other process', async () => {
      const id = `sub-${randomBytes(6).toString('hex')}`;
      const onA = await login(baseA, id);
      clients.push(onA);
      // Subscribed through B, connected to A, written through B.
      const sub = await call(baseB, 'POST', '/1.1/LiveQuery/subscribe', { query: { className: 'LqTwo', where: { room: 'r' } }, id });
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      const first = await call(baseB, 'POST', '/1.1/classes/LqTwo', { room: 'r', n: 1 });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const p1 = pushOf(await onA.next((m) => m.cmd === CommandType.data));
      assert.deepEqual([p1.op, p1.object.objectId, p1.query_id], ['create', first.body.objectId, sub.body.query_id]);

      // A dies with the client on it; B keeps serving writes.
      procA.child.kill('SIGKILL');
      await procA.exited();
      const missed = await call(baseB, 'PUT', `/1.1/classes/LqTwo/${first.body.objectId}`, { n: 2 });
      assert.equal(missed.status, 200);
      const onB = await login(baseB, id);
      clients.push(onB);
      // Oldest first: the create A sent but the client never acknowledged, then the missed update.
      const replayed = pushOf(await onB.next((m) => m.cmd === CommandType.data));
      assert.deepEqual([replayed.op, replayed.object.n], ['create', 1]);
      const p2 = pushOf(await onB.next((m) => m.cmd === CommandType.data));
      assert.deepEqual([p2.op, p2.object.n, p2.updatedKeys], ['update', 2, ['n']]);
      // The SDK re-subscribes with the same body and keeps its query id.
      const again = await call(baseB, 'POST', '/1.1/LiveQuery/subscribe', { query: { className: 'LqTwo', where: { room: 'r' } }, id });
      assert.equal(again.body.query_id, sub.body.query_id);
      await onB.close();
    });

    test("a crashed process's clients lose their subscriptions once the window has passed", async () => {
      const { proc: procC, base: baseC } = await startServer(env);
      const id = `gone-${randomBytes(6).toString('hex')}`;
      const onC = await login(baseC, id);
      clients.push(onC);
      const sub = await call(baseC, 'POST', '/1.1/LiveQuery/subscribe', { query: { className: 'LqGone', where: {} }, id });
      assert.equal(sub.status, 200);
      procC.child.kill('SIGKILL');
      await procC.exited();
      // B sweeps C's lease (LEASE_MS), then expires the client after the window.
      const { openDatabase } = await import('../../src/storage/open-database.ts');
      const { sql } = await import('../../src/sql/fragment.ts');
      const db = await openDatabase({ databaseUrl: url, schema, poolSize: 1, statementTimeoutMs: 10000 });
      try {
        const count = async () => (await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_lq_subscriptions WHERE installation_id = ${id}`))[0].n;
        assert.equal(await count(), 1);
        const deadline = Date.now() + 60_000 + WINDOW_MS;
        while ((await count()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
        assert.equal(await count(), 0, 'subscriptions of the crashed process expired');
        const [{ n }] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_lq_clients WHERE installation_id = ${id}`);
        assert.equal(n, 0);
      } finally {
        await db.close();
      }
      // A write now finds no subscription on the class (B dropped it from memory too).
      const w = await call(baseB, 'POST', '/1.1/classes/LqGone', { v: 1 });
      assert.equal(w.status, 201);
    });
  });
}
