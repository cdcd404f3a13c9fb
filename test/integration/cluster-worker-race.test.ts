// The cluster primary (`serve --workers 2`) while its workers start: a worker that listened and
// then died is replaced even when its sibling does not listen yet. The primary used to count
// listening events and took such a death for a start that failed: it stopped every worker and
// exited 1 without a word (fault-worker-kill failed once this way on a loaded CI machine, where
// the second worker started many seconds after the first). And a replacement that dies before it
// listens is forked again only after a wait that doubles (1 s, 2 s, ...), never in a tight loop.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { childPids } from '../../bench/server-process.ts';
import { dropTestSchemas, freePort, larder, stop, waitForHealth } from './harness/larder-process.ts';

const PG_URL = process.env.TEST_DATABASE_URL;

/**
 * The serving workers of a primary: cluster children (NODE_UNIQUE_ID) other than the one-off
 * preparing child. Between fork and exec a child still has the primary's command line and
 * environment: without the NODE_UNIQUE_ID check the preparing child could be taken for a worker
 * (and frozen: then nothing ever starts).
 */
function workerPids(primary: number): number[] {
  return childPids(primary).filter((pid) => {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      return environ.some((v) => v.startsWith('NODE_UNIQUE_ID=')) && !environ.includes('LARDER_CLUSTER_PREPARE=1');
    } catch {
      return false; // ended while we looked
    }
  });
}

/** CPU time a process has used so far, ms (utime + stime, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

// Declared only when PostgreSQL is available (workers need it), like forEachEngine.
if (PG_URL) {
  test('--workers 2: a worker that listened and died before its sibling listened is replaced; the server serves on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'larder-race-'));
    const schema = `t_race_${randomBytes(5).toString('hex')}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const l = larder(['serve', '--workers', '2'], { DATABASE_URL: PG_URL, LARDER_DB_SCHEMA: schema, LARDER_DATA_DIR: dataDir, LARDER_PORT: String(port), LARDER_LOG_LEVEL: 'info' });
    const listened = (pid: number) => new RegExp(`"pid":${pid},[^\\n]*"msg":"Server listening at`).test(l.stdout());
    let frozen = 0;
    const seen = new Set<number>(); // every worker, to kill any left over after a failure
    const workers = () => workerPids(l.child.pid as number).map((pid) => (seen.add(pid), pid));
    try {
      // Freeze the first worker as soon as it exists (it needs seconds to start): the other one
      // listens first and alone, which a busy machine can do on its own.
      for (const deadline = Date.now() + 120_000; !frozen; await new Promise((r) => setTimeout(r, 5))) {
        assert.ok(Date.now() < deadline && l.child.exitCode === null, `no worker started\n${l.stdout()}\n${l.stderr()}`);
        frozen = workers()[0] ?? 0;
      }
      process.kill(frozen, 'SIGSTOP');
      // Frozen just after exec, before it opens a connection: a worker frozen inside a start-up
      // transaction could hold an advisory lock (module tables) that its sibling waits for.
      const frozenCpuMs = cpuMs(frozen);
      await waitForHealth(base, l).catch((err: Error) => Promise.reject(new Error(`${err.message}\n(worker ${frozen} frozen after ${frozenCpuMs} ms of CPU)`)));
      const victim = workers().find((pid) => pid !== frozen);
      assert.ok(victim && listened(victim) && !listened(frozen), `one worker listens, the frozen one does not\n${l.stdout()}`);
      assert.doesNotMatch(l.stdout(), /workers: +2/, 'no banner before both workers listen');

      process.kill(victim, 'SIGKILL');
      // The primary says it replaces the worker (the old primary stopped the cluster instead).
      await l.waitFor(new RegExp(`"workerPid":${victim},[^\\n]*"signal":"SIGKILL"[^\\n]*"msg":"worker exited; starting a new one"`), 60_000);
      process.kill(frozen, 'SIGCONT');
      // The thawed worker and the replacement both listen: the banner, and two live workers.
      await l.waitFor(/workers: +2/, 120_000);
      await waitForHealth(base, l);
      const now = workers();
      assert.equal(now.length, 2, l.stdout());
      assert.ok(now.includes(frozen) && !now.includes(victim), `${now} ${frozen} ${victim}`);
      l.child.kill('SIGTERM');
      assert.equal(await l.exited(30_000), 0, `${l.stdout()}\n${l.stderr()}`);
      assert.ok(!now.some(alive), 'no worker left behind');
    } finally {
      if (frozen && alive(frozen)) process.kill(frozen, 'SIGCONT');
      stop(l);
      for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await dropTestSchemas([schema]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('--workers 2: replacements that die before they listen are forked again after 1 s, then 2 s; the server serves on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'larder-backoff-'));
    const schema = `t_backoff_${randomBytes(5).toString('hex')}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const l = larder(['serve', '--workers', '2'], { DATABASE_URL: PG_URL, LARDER_DB_SCHEMA: schema, LARDER_DATA_DIR: dataDir, LARDER_PORT: String(port), LARDER_LOG_LEVEL: 'info' });
    const seen = new Set<number>();
    const workers = () => workerPids(l.child.pid as number).map((pid) => (seen.add(pid), pid));
    /** The first worker not in `known`, as soon as it exists (polled every 5 ms), and when it appeared. */
    const newWorker = async (known: number[]): Promise<{ pid: number; at: number }> => {
      for (const deadline = Date.now() + 90_000; ; await new Promise((r) => setTimeout(r, 5))) {
        assert.ok(Date.now() < deadline && l.child.exitCode === null, `no new worker\n${l.stdout()}\n${l.stderr()}`);
        const pid = workers().find((p) => !known.includes(p));
        if (pid) return { pid, at: Date.now() };
      }
    };
    const exitRecord = async (pid: number) => {
      await l.waitFor(new RegExp(`"workerPid":${pid},[^\\n]*"msg":"worker exited; starting a new one"`), 60_000);
      const line = l.stdout().split('\n').find((x) => x.includes(`"workerPid":${pid},`) && x.includes('starting a new one'));
      return JSON.parse(line as string) as { retryInMs?: number };
    };
    try {
      await l.waitFor(/workers: +2/, 120_000);
      await waitForHealth(base, l);
      const [first, second] = workers();
      // A worker that had listened is replaced at once, with no wait.
      process.kill(first, 'SIGKILL');
      assert.equal((await exitRecord(first)).retryInMs, undefined);
      let known = [first, second];
      const waits: number[] = [];
      // Its replacements are killed as soon as they exist, long before they could listen.
      for (const expected of [1000, 2000]) {
        const r = await newWorker(known);
        known = [...known, r.pid];
        process.kill(r.pid, 'SIGKILL');
        const diedAt = Date.now();
        assert.equal((await exitRecord(r.pid)).retryInMs, expected);
        const next = await newWorker(known);
        waits.push(next.at - diedAt);
        assert.ok(next.at - diedAt >= expected - 50, `forked again after ${next.at - diedAt} ms, expected a wait of ${expected} ms`);
        known = known.filter((p) => p !== next.pid); // the next round finds it again
      }
      // The sibling served throughout, and the last replacement (not killed) listens.
      assert.equal((await fetch(`${base}/health`)).status, 200);
      const last = workers().find((p) => !known.includes(p)) as number;
      await l.waitFor(new RegExp(`"pid":${last},[^\\n]*"msg":"Server listening at`), 120_000);
      const now = workers();
      assert.equal(now.length, 2, `${now} ${waits}`);
      assert.ok(now.includes(second) && now.includes(last));
      l.child.kill('SIGTERM');
      assert.equal(await l.exited(30_000), 0, `${l.stdout()}\n${l.stderr()}`);
    } finally {
      stop(l);
      for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await dropTestSchemas([schema]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
