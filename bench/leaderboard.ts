/**
 * `npm run bench:leaderboard`: ranking queries on one leaderboard of 100,000 entries, in
 * process (Fastify inject: no network), on PostgreSQL (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/larder_bench; a fresh schema per run, dropped afterwards)
 * or on PGlite with --pglite.
 *
 * Reports milliseconds per request (median and p95 over --rounds) for: the top 20, a page deep
 * in the board (skip 50,000), the 21 entries around a user in the middle and near the end, the
 * count, and one statistics update. Flags: --entries N (100000), --rounds N (30), --pglite.
 */
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { createLogger } from '../src/log.ts';
import { defaultModules } from '../src/modules/index.ts';
import { openApp } from '../src/open-app.ts';
import { sql } from '../src/sql/fragment.ts';
import { openDatabase } from '../src/storage/open-database.ts';
import { benchDatabaseUrl, dropSchema, ensureDatabase, freshSchemaName, redact } from './bench-database.ts';

const { values: flags } = parseArgs({
  options: { entries: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '30' }, pglite: { type: 'boolean', default: false } },
});
const ENTRIES = Number(flags.entries);
const ROUNDS = Number(flags.rounds);
const KEYS = { appId: 'benchLeaderboard', appKey: 'benchKey', masterKey: 'benchMaster' };

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return `median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const url = flags.pglite ? undefined : benchDatabaseUrl();
  const schema = freshSchemaName();
  if (url) await ensureDatabase(url);
  const db = await openDatabase({ databaseUrl: url, schema, poolSize: 5, statementTimeoutMs: 60_000 });
  const { app } = await openApp({ db, keys: KEYS, masterSignWindowMs: 900_000 });
  const server = await createApp(app, { logger: createLogger('silent'), modules: defaultModules() });
  await server.ready();
  const headers = { 'x-lc-id': KEYS.appId, 'x-lc-key': `${KEYS.masterKey},master`, 'content-type': 'application/json' };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await server.inject({ method, url: path, headers, payload: body === undefined ? undefined : JSON.stringify(body) });
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as { results: { rank: number }[]; count?: number };
  };
  try {
    console.log(`engine: ${url ? `PostgreSQL ${redact(url)}` : 'PGlite'}; ${ENTRIES} entries; ${ROUNDS} rounds per query`);
    await call('POST', '/1.1/leaderboard/leaderboards', { statisticName: 'bench', order: 'descending', updateStrategy: 'better', versionChangeInterval: 'never' });
    const t0 = performance.now();
    // Entries straight into the table (the API would take minutes); values with ties, as games have.
    await db.query(sql`INSERT INTO _larder_leaderboard_entries (name, version, user_id, value, sort_key, reached_at)
      SELECT 'bench', 0, 'u' || lpad(i::text, 8, '0'), (i * 7919) % 50000, -((i * 7919) % 50000), now() - (i || ' seconds')::interval
      FROM generate_series(1, ${ENTRIES}) AS i`);
    // As a live table would be after autovacuum: the visibility map lets counts use the index alone.
    await db.query(sql`VACUUM ANALYZE _larder_leaderboard_entries`);
    // A user with a real _User row to update, and the ids to look around.
    await db.query(sql`INSERT INTO "_User" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES ('benchuser0001', now(), now(), NULL, '{*}', '{*}', '{"username":"bench"}'::jsonb) ON CONFLICT DO NOTHING`).catch(() => undefined);
    console.log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // The users ranked in the middle and third from last (user ids do not follow ranks).
    const userAt = async (skip: number) => ((await call('GET', `/1.1/leaderboard/leaderboards/bench/ranks?skip=${skip}&limit=1`)).results[0] as unknown as { user: { objectId: string } }).user.objectId;
    const middle = await userAt(Math.floor(ENTRIES / 2));
    const nearEnd = await userAt(ENTRIES - 3);
    const cases: [string, () => Promise<unknown>][] = [
      ['top 20', () => call('GET', '/1.1/leaderboard/leaderboards/bench/ranks?limit=20')],
      ['page at skip 50,000 (limit 20)', () => call('GET', '/1.1/leaderboard/leaderboards/bench/ranks?skip=50000&limit=20')],
      ['21 around a user in the middle', () => call('GET', `/1.1/leaderboard/leaderboards/bench/ranks/${middle}?limit=21`)],
      ['21 around a user near the end', () => call('GET', `/1.1/leaderboard/leaderboards/bench/ranks/${nearEnd}?limit=21`)],
      ['count', () => call('GET', '/1.1/leaderboard/leaderboards/bench/ranks?count=1&limit=0')],
      ['update one statistic (master key)', () => call('POST', '/1.1/leaderboard/users/benchuser0001/statistics', [{ statisticName: 'bench', statisticValue: Math.random() * 60000 }])],
    ];
    for (const [label, run] of cases) {
      await run();
      const ms: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const t = performance.now();
        await run();
        ms.push(performance.now() - t);
      }
      console.log(`${label.padEnd(36)} ${stats(ms)}`);
    }
    const around = await call('GET', `/1.1/leaderboard/leaderboards/bench/ranks/${middle}?limit=3`);
    console.log(`check: ranks around the middle user ${around.results.map((r) => r.rank).join(', ')}`);
  } finally {
    await server.close();
    await db.close();
    if (url) await dropSchema(url, schema);
  }
}

await main();
