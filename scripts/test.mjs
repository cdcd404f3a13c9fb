// Runs every test: unit tests next to the code and integration tests on every engine.
// PostgreSQL: TEST_DATABASE_URL if set; otherwise a local server is tried (database larder_test).
// In CI (CI=true) the PostgreSQL leg is mandatory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

// A failing file is run once more, alone, after the others: a test that failed only because
// the machine was loaded (a 2-core CI machine runs two files at a time, each with servers and
// databases) passes then, and one that fails again fails the run. Every rerun is reported by
// name, so a flaky test stays visible. LARDER_TEST_RETRIES=0 turns the rerun off; at most
// MAX_RERUN files are rerun (more failures than that are not load).
const retries = Number(process.env.LARDER_TEST_RETRIES ?? '1');
const MAX_RERUN = 4;
const failedList = join(mkdtempSync(join(tmpdir(), 'larder-test-')), 'failed-files.json');
const env = { ...process.env, ...(url ? { TEST_DATABASE_URL: url } : {}), LARDER_TEST_FAILED_FILES: failedList };

function run(list, concurrency) {
  rmSync(failedList, { force: true });
  const res = spawnSync(process.execPath, [
    '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=900000',
    // TAP as before, then a summary of the failures after the totals (see failure-summary.mjs).
    '--test-reporter=tap', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/failure-summary.mjs', '--test-reporter-destination=stdout',
    ...list,
  ], { stdio: 'inherit', env });
  const failed = existsSync(failedList) ? JSON.parse(readFileSync(failedList, 'utf8')) : [];
  return { status: res.status ?? 1, failed };
}

let { status, failed } = run(files, 2);
if (status !== 0 && retries > 0 && failed.length > 0 && failed.length <= MAX_RERUN) {
  console.log(`\n# RERUN: ${failed.length} file(s) failed; running them once more, alone:\n${failed.map((f) => `#   ${f}`).join('\n')}`);
  const again = run(failed, 1);
  status = again.status;
  if (status === 0) console.log(`# FLAKY: passed when run again alone (the failure is in the output above):\n${failed.map((f) => `#   ${f}`).join('\n')}`);
  else console.log('# FAILED AGAIN: the failure is real (see the summary above).');
}
if (!url) console.log('NOTE: the PostgreSQL leg DID NOT RUN (set TEST_DATABASE_URL to run it).');
process.exit(status);
