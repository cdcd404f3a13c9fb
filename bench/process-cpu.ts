import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/** CPU seconds (user + system) per process id. */
export type CpuSnapshot = Map<number, number>;

/** The name and CPU seconds (user + system) in a /proc stat file (a process's or a thread's); undefined once it is gone. */
function readStat(path: string): { name: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(f[11]) + Number(f[12])) / 100 };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) in a /proc stat file (a process's or a thread's); undefined once it is gone. */
export function statCpuSeconds(path: string): number | undefined {
  return readStat(path)?.seconds;
}

/** CPU seconds (user + system) of the given processes, from /proc/<pid>/stat (those gone are left out). */
export function cpuOf(pids: readonly number[]): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const pid of pids) {
    const v = statCpuSeconds(`/proc/${pid}/stat`);
    if (v !== undefined) out.set(pid, v);
  }
  return out;
}

/** The threads of a process (/proc/<pid>/task): id, name and CPU seconds so far; those that end meanwhile are left out. */
export function threadCpu(pid: number): { tid: string; name: string; seconds: number }[] {
  const out: { tid: string; name: string; seconds: number }[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const t = readStat(`/proc/${pid}/task/${tid}/stat`);
    if (t) out.push({ tid, ...t });
  }
  return out;
}

/** CPU seconds used between two snapshots by the processes present in both (or only `pids`). */
export function cpuUsed(before: CpuSnapshot, after: CpuSnapshot, pids?: readonly number[]): number {
  let s = 0;
  for (const [pid, v] of after) if (!pids || pids.includes(pid)) s += v - (before.get(pid) ?? v);
  return s;
}

/** PostgreSQL backends connected to the bench database (the server's pool, not other databases). */
export async function backendPids(db: pg.Pool | pg.Client): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  return rows.map((r) => r.pid);
}

/** CPU seconds (user + system) of one process so far; undefined once it is gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  return cpuOf([pid]).get(pid);
}

/** CPU seconds so far of the given processes together (those gone count 0). */
export function cpuTotal(pids: readonly number[]): number {
  let s = 0;
  for (const pid of pids) s += cpuSecondsOf(pid) ?? 0;
  return s;
}

/**
 * Client backends of the bench database only (no autovacuum or other background workers): other
 * people's connections to the same database still count.
 */
export async function clientBackendPids(db: pg.Pool | pg.Client): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
  );
  return rows.map((r) => r.pid);
}

/**
 * Backends' CPU over a run, remembering each one's last reading: a backend whose idle connection
 * the pool closes during the run (pg-pool, after 10 s) would otherwise count as zero at the end
 * and make the run's figure low or even negative. `sample()` while the run goes (a timer).
 */
export function backendCpu(pids: readonly number[]): { sample(): void; used(): number } {
  const start = new Map(pids.map((pid) => [pid, cpuSecondsOf(pid) ?? 0]));
  const last = new Map(start);
  const sample = () => {
    for (const pid of pids) {
      const v = cpuSecondsOf(pid);
      if (v !== undefined) last.set(pid, v);
    }
  };
  return { sample, used: () => (sample(), pids.reduce((sum, pid) => sum + (last.get(pid) ?? 0) - (start.get(pid) ?? 0), 0)) };
}

/** A process's CPU time in nanoseconds from /proc/<pid>/schedstat (finer than stat's ticks: for one statement's cost). */
export function schedCpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
