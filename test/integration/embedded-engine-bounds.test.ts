// Issue 12 item 1: one expensive request must not freeze the server. The issue's scenario (one
// app-key request with 40, and 100, `$regex` branches in an `$or` over 30,000 objects) while
// /health and a plain GET are timed. The embedded engine runs in a worker thread, so the event
// loop keeps answering; a statement that holds the engine past the slice while others wait is
// cancelled with 124; every statement is bounded by the statement timeout on both engines (124
// after the same limit).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { ident, sql } from '../../src/sql/fragment.ts';
import { engines, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';
import { isApiError } from '../../src/errors/api-error.ts';
import { embeddedReopenCpuSeconds, embeddedReopenSeconds } from '../../src/metrics/core-metrics.ts';
import type { Database } from '../../src/storage/database.ts';
import { DEFAULT_EMBEDDED_SLICE_MS, openDatabase } from '../../src/storage/open-database.ts';

const OBJECTS = 30_000;
/** The statement timeout of the harness (both engines: "124 after the same limit"). */
const TIMEOUT_MS = 2500;
/** The embedded engine's slice at its default (LARDER_EMBEDDED_SLICE_MS). */
const SLICE_MS = DEFAULT_EMBEDDED_SLICE_MS;
/** /health must answer within this while the heavy request runs: about a second, with margin. */
const PROMPT_MS = 1500;
/**
 * What a GET may wait on top of the slice and the engine's reopens measured in the same run:
 * its own statement and the event loop's turns on a loaded machine (CI runs at load 20-40,
 * where one reopen alone took 2.5 s). Generous on purpose: what is asserted is that the GET
 * does not wait for the heavy statement's end (the statement timeout) or for several slices.
 */
const MARGIN_MS = 3000;

/** Seeds OBJECTS rows of ~600 characters of text into class `Big` straight through SQL (fast). */
async function seed(h: Harness): Promise<string> {
  const first = await h.client.post('/1.1/classes/Big', { text: 'seed', n: 0 });
  assert.equal(first.status, 201, first.text);
  // In small statements: background work (leases, listeners) waits for the engine too, and a
  // statement holding it past the slice is cancelled like any other; on a loaded machine that
  // can happen to a chunk, which then changed nothing and is sent again.
  const CHUNK = 100;
  for (let from = 1; from < OBJECTS; from += CHUNK) {
    const to = Math.min(from + CHUNK - 1, OBJECTS - 1);
    for (let attempt = 1; ; attempt++) {
      try {
        await h.db.query(sql`INSERT INTO ${ident('Big')} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
          SELECT 'b' || lpad(g::text, 23, '0'), now(), now(), '{"*":{"read":true,"write":true}}'::jsonb, ARRAY['*'], ARRAY['*'],
                 jsonb_build_object('n', g, 'text', repeat(md5(g::text), 20))
          FROM generate_series(${from}::int, ${to}::int) g`);
        break;
      } catch (err) {
        if (!(isApiError(err) && err.code === 124) || attempt === 5) throw err;
      }
    }
  }
  return first.body.objectId as string;
}

/** The issue's hostile query: `branches` `$regex` conditions in one `$or`, none of which matches. */
function heavyWhere(branches: number): string {
  const or = Array.from({ length: branches }, (_, i) => ({ text: { $regex: `${i}z.*y.*x.*w.*v$` } }));
  return JSON.stringify({ $or: or });
}

async function timed(url: string, init: RequestInit = {}): Promise<{ ms: number; status: number; body: any }> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const body = await res.json().catch(() => undefined);
  return { ms: performance.now() - t0, status: res.status, body };
}

const HEADERS = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };

/** The embedded engine's reopens so far in this process: count, and sums of wall and CPU time, ms. */
async function reopenMs(): Promise<{ count: number; ms: number; cpuMs: number }> {
  const [wall, cpu] = [await embeddedReopenSeconds.get(), await embeddedReopenCpuSeconds.get()];
  const pick = (m: typeof wall, name: string) => m.values.find((v) => v.metricName === name)?.value ?? 0;
  return {
    count: pick(wall, 'larder_embedded_reopen_seconds_count'),
    ms: pick(wall, 'larder_embedded_reopen_seconds_sum') * 1000,
    cpuMs: pick(cpu, 'larder_embedded_reopen_cpu_seconds_sum') * 1000,
  };
}

for (const engine of engines()) {
  describe(`one heavy request does not stall /health or other requests [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let base: string;
    let id: string;
    before(async () => {
      // The same statement timeout on both engines; the embedded engine's slice at its default.
      h = await startHarness(engine, { statementTimeoutMs: TIMEOUT_MS, embeddedSliceMs: SLICE_MS });
      id = await seed(h);
      base = await h.listen();
    });
    after(async () => h.stop());

    /** Starts the heavy request, then times /health (polled) and a plain GET by id while it runs. */
    async function underHeavy(branches: number, withGet: boolean) {
      const heavyUrl = `${base}/1.1/classes/Big?where=${encodeURIComponent(heavyWhere(branches))}&limit=10`;
      let heavyDone = false;
      const heavy = timed(heavyUrl, { headers: HEADERS }).finally(() => {
        heavyDone = true;
      });
      // Give the heavy statement time to start and hold the engine.
      await new Promise((r) => setTimeout(r, 300));
      const health: number[] = [];
      for (let i = 0; i < (withGet ? 5 : 100) && !heavyDone; i++) {
        const r = await timed(`${base}/health`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        health.push(r.ms);
        await new Promise((r) => setTimeout(r, 100));
      }
      const get = withGet ? await timed(`${base}/1.1/classes/Big/${id}`, { headers: HEADERS }) : undefined;
      if (get) {
        assert.equal(get.status, 200, JSON.stringify(get.body));
        assert.equal(get.body.objectId, id);
      }
      return { heavy: await heavy, health, get };
    }

    for (const branches of [40, 100]) {
      test(`${branches} $regex branches over ${OBJECTS} objects while /health and a GET by id are timed`, async (t) => {
        const before = await reopenMs();
        const { heavy, health, get } = await underHeavy(branches, true);
        assert.ok(get);
        const reopen = await reopenMs();
        const reopenThisTest = reopen.ms - before.ms;
        t.diagnostic(`${engine} (load ${loadavg()[0].toFixed(1)}, slice ${SLICE_MS} ms): heavy ${heavy.status} ${heavy.body?.code ?? ''} after ${Math.round(heavy.ms)} ms; ` +
          `/health ${health.map(Math.round).join(', ')} ms; GET ${Math.round(get.ms)} ms; engine reopen ${Math.round(reopenThisTest)} ms (CPU ${Math.round(reopen.cpuMs - before.cpuMs)} ms)`);
        // The event loop never waits for the database: /health answers at once while the heavy
        // statement runs (before PGlite moved to a worker it waited for the whole statement, 23 s).
        for (const ms of health) assert.ok(ms <= PROMPT_MS, `/health took ${ms} ms`);
        if (engine === 'pglite') {
          // The GET's arrival cancelled the heavy statement once it had held the engine for the
          // slice: 124 for it, and the GET waited for the rest of the slice and one reopen of the
          // engine (a warm spare worker starting PostgreSQL), not for the statement's end.
          assert.equal(heavy.status, 503, JSON.stringify(heavy.body));
          assert.equal(heavy.body.code, 124);
          assert.match(heavy.body.error, /other requests waited/);
          assert.equal(reopen.count - before.count, 1);
          assert.ok(get.ms <= SLICE_MS + reopenThisTest + MARGIN_MS, `GET took ${get.ms} ms (engine reopen ${reopenThisTest} ms)`);
        } else {
          // PostgreSQL runs the heavy query on its own connection: the GET does not wait at all.
          assert.ok(heavy.status === 200 || heavy.body?.code === 124, JSON.stringify(heavy.body));
          assert.ok(get.ms <= PROMPT_MS, `GET took ${get.ms} ms`);
        }
      });
    }

    test('GETs by id while four clients keep sending the 40-branch query: each GET waits for at most one cut heavy statement', async (t) => {
      const heavyUrl = `${base}/1.1/classes/Big?where=${encodeURIComponent(heavyWhere(40))}&limit=10`;
      const getUrl = `${base}/1.1/classes/Big/${id}`;
      // Warm: the class and the app's settings are cached, as on a server that has served them.
      assert.equal((await timed(getUrl, { headers: HEADERS })).status, 200);
      let stop = false;
      const answers = new Map<string, number>();
      const client = async () => {
        while (!stop) {
          const r = await timed(heavyUrl, { headers: HEADERS });
          const key = `${r.status}${r.body?.code ? ` ${r.body.code}` : ''}`;
          answers.set(key, (answers.get(key) ?? 0) + 1);
        }
      };
      const clients = Array.from({ length: 4 }, client);
      const gets: { ms: number; reopens: number; reopenMs: number; cpuMs: number }[] = [];
      try {
        await new Promise((r) => setTimeout(r, 300));
        for (let i = 0; i < 4; i++) {
          const before = await reopenMs();
          const get = await timed(getUrl, { headers: HEADERS });
          const after = await reopenMs();
          assert.equal(get.status, 200, JSON.stringify(get.body));
          assert.equal(get.body.objectId, id);
          gets.push({ ms: get.ms, reopens: after.count - before.count, reopenMs: after.ms - before.ms, cpuMs: after.cpuMs - before.cpuMs });
        }
      } finally {
        stop = true;
        await Promise.all(clients);
      }
      t.diagnostic(`${engine} (load ${loadavg()[0].toFixed(1)}, slice ${SLICE_MS} ms): GETs ${gets.map((g) => `${Math.round(g.ms)} ms (${g.reopens} reopens, ${Math.round(g.reopenMs)} ms, CPU ${Math.round(g.cpuMs)} ms)`).join('; ')}; heavy answers ${JSON.stringify(Object.fromEntries(answers))}`);
      for (const key of answers.keys()) assert.ok(key === '200' || key === '503 124', key);
      if (engine === 'pglite') {
        for (const g of gets) {
          // The GET waits for the running heavy statement's slice and one reopen, then goes
          // before the next heavy statement (engine-turns.ts). Before, it often waited for two:
          // the cut made listeners reload the app's caches, so the GET after it needed a
          // second statement, which queued behind the next heavy one.
          assert.ok(g.ms <= SLICE_MS + g.reopenMs + MARGIN_MS, `GET took ${g.ms} ms (reopens ${g.reopenMs} ms)`);
        }
        // About one reopen per GET (two each before); two more allowed in all for GETs that
        // came while a reopen was under way on a busy machine.
        const reopens = gets.reduce((n, g) => n + g.reopens, 0);
        assert.ok(reopens <= gets.length + 2, `${reopens} reopens during ${gets.length} GETs`);
      } else {
        for (const g of gets) assert.ok(g.ms <= 2 * PROMPT_MS, `GET took ${g.ms} ms`);
      }
    });

    test(`100 $regex branches with nothing else waiting: 124 after the statement timeout (${TIMEOUT_MS} ms) on both engines`, async (t) => {
      const before = await reopenMs();
      const { heavy, health } = await underHeavy(100, false);
      // A cut engine is reopened (a spare worker starting PostgreSQL); on a loaded machine that
      // took 5-6 s, and the answer may come after it (CI, load 20: 10.6 s in all).
      const reopen = (await reopenMs()).ms - before.ms;
      t.diagnostic(`${engine} (load ${loadavg()[0].toFixed(1)}): heavy ${heavy.status} ${heavy.body?.code ?? ''} after ${Math.round(heavy.ms)} ms (${heavy.body?.error}); /health max ${Math.round(Math.max(...health))} ms; engine reopen ${Math.round(reopen)} ms`);
      for (const ms of health) assert.ok(ms <= PROMPT_MS, `/health took ${ms} ms`);
      assert.equal(heavy.status, 503, JSON.stringify(heavy.body));
      assert.equal(heavy.body.code, 124);
      if (/other requests waited/.test(heavy.body.error)) {
        // The server's own background work (leases, schedules) asked for the embedded engine
        // after the slice: cut by the slice instead, which is never later than the timeout.
        assert.equal(engine, 'pglite');
        assert.ok(heavy.ms >= SLICE_MS - 50, `answered after ${heavy.ms} ms`);
      } else {
        assert.ok(heavy.ms >= TIMEOUT_MS - 50, `answered after ${heavy.ms} ms`);
      }
      assert.ok(heavy.ms <= TIMEOUT_MS + reopen + 5000, `answered after ${heavy.ms} ms (engine reopen ${reopen} ms)`);
      // The engine works afterwards, with every object still there.
      const get = await h.client.get(`/1.1/classes/Big/${id}`);
      assert.equal(get.body.objectId, id, get.text);
      // Every object is still there. Counted in SQL by keys, 3,000 at a time: one count of all
      // 30,000 documents took more than the slice on a loaded machine (load 17-21, the engine's
      // cache cold after its reopen), so the server's background work had it cut again and again.
      let counted = 0;
      for (let last = '', attempts = 0; ; ) {
        try {
          const [page] = await h.db.query<{ n: number; last: string | null }>(sql`SELECT count(*)::int AS n, max(k) AS last
            FROM (SELECT "objectId" AS k FROM ${ident('Big')} WHERE "objectId" > ${last} ORDER BY "objectId" LIMIT 3000) keys`);
          if (page.n === 0) break;
          counted += page.n;
          last = page.last as string;
        } catch (err) {
          if (!(isApiError(err) && err.code === 124) || ++attempts === 10) throw err;
        }
      }
      assert.equal(counted, OBJECTS);
    });
  });

  describe(`every statement is bounded by the statement timeout (124) [${engine}]`, () => {
    let db: Database;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    before(async () => {
      db = await openDatabase({
        databaseUrl: engine === 'postgres' ? process.env.TEST_DATABASE_URL : undefined,
        schema,
        poolSize: 2,
        statementTimeoutMs: 500,
        embeddedSliceMs: 0,
      });
      await db.exec('CREATE TABLE kept (v int)');
    });
    after(async () => {
      if (engine === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await db.close();
    });

    test('a statement past the limit gets 124; the engine answers afterwards', async () => {
      await assert.rejects(db.query(sql`SELECT pg_sleep(5)`), (e: unknown) => isApiError(e) && e.code === 124);
      assert.deepEqual(await db.query(sql`SELECT 1 AS one`), [{ one: 1 }]);
    });

    test('a transaction cut by the limit leaves nothing half-written; committed writes stay', async () => {
      await db.query(sql`INSERT INTO kept VALUES (1)`);
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query(sql`INSERT INTO kept VALUES (2)`);
          await tx.query(sql`SELECT pg_sleep(5)`);
          await tx.query(sql`INSERT INTO kept VALUES (3)`);
        }),
        (e: unknown) => isApiError(e) && e.code === 124,
      );
      assert.deepEqual(await db.query(sql`SELECT v FROM kept ORDER BY v`), [{ v: 1 }]);
    });
  });
}
