import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { LISTENER_APPLICATION_NAME, startPgListener } from './pg-listener.ts';

// PostgreSQL-only code: runs when a server is configured (npm test finds the local one; CI sets it).
const url = process.env.TEST_DATABASE_URL;

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), `timed out waiting for ${what}`);
}

test('the listener hears notifications, reconnects after losing its connection, and says so', { skip: !url && 'needs TEST_DATABASE_URL' }, async () => {
  const channel = `larder_test_${randomBytes(4).toString('hex')}`;
  const got: string[] = [];
  let resets = 0;
  const listener = await startPgListener({ url: url!, channel, onMessage: (p) => got.push(p), onReset: () => resets++ });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('SELECT pg_notify($1, $2)', [channel, 'one']);
    await until(() => got.length === 1, 'the first notification');
    assert.deepEqual(got, ['one']);
    assert.equal(resets, 0);
    // Kill the listener's connection, as a server restart or a network cut would.
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query = $2`,
      [LISTENER_APPLICATION_NAME, `LISTEN "${channel}"`],
    );
    assert.equal(killed.rowCount, 1);
    await until(() => resets === 1, 'the reconnect');
    await admin.query('SELECT pg_notify($1, $2)', [channel, 'two']);
    await until(() => got.length === 2, 'a notification after the reconnect');
    assert.deepEqual(got, ['one', 'two']);
  } finally {
    await listener.close();
    await admin.end();
  }
  // Closed: no more deliveries, no reconnects.
  const late = new pg.Client({ connectionString: url });
  await late.connect();
  await late.query('SELECT pg_notify($1, $2)', [channel, 'three']);
  await late.end();
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(got, ['one', 'two']);
});
