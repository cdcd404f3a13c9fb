// Runs every test: unit tests next to the code and integration tests on every engine.
// PostgreSQL: TEST_DATABASE_URL if set; otherwise a local server is tried (database larder_test).
// In CI (CI=true) the PostgreSQL leg is mandatory.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

async function localPostgres() {
  const admin = 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'larder_test'");
    if (!rows.length) await client.query('CREATE DATABASE larder_test');
    return 'postgres://postgres@127.0.0.1:5432/larder_test';
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

const filter = process.argv.slice(2);
let files = [...findTests('src'), ...findTests('test')].sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));

let url = process.env.TEST_DATABASE_URL;
if (!url && process.env.CI !== 'true') url = await localPostgres();
if (!url) {
  if (process.env.CI === 'true') {
    console.error('FATAL: CI=true but TEST_DATABASE_URL is not set: the PostgreSQL leg may not be skipped in CI.');
    process.exit(1);
  }
  console.log('NOTE: no PostgreSQL reachable: integration tests run on PGlite only. The PostgreSQL leg DID NOT RUN.');
} else {
  console.log(`Integration tests run on PGlite and on PostgreSQL (${url.replace(/\/\/[^@]*@/, '//')}).`);
}

const res = spawnSync(process.execPath, [
  '--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=900000',
  // TAP as before, then a summary of the failures after the totals (see failure-summary.mjs).
  '--test-reporter=tap', '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/failure-summary.mjs', '--test-reporter-destination=stdout',
  ...files,
], {
  stdio: 'inherit',
  env: { ...process.env, ...(url ? { TEST_DATABASE_URL: url } : {}) },
});
if (!url) console.log('NOTE: the PostgreSQL leg DID NOT RUN (set TEST_DATABASE_URL to run it).');
process.exit(res.status ?? 1);
