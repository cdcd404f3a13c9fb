// The cluster primary (`serve --workers 2`) while its workers start: a worker that listened and
// then died is replaced even when its sibling does not listen yet. The primary used to count
// listening events and took such a death for a start that failed: it stopped every worker and
// exited 1 without a word (fault-worker-kill failed once this way on a loaded CI machine, where
// the second worker started many seconds after the first).
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
}
