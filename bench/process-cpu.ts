import { readFileSync } from 'node:fs';
import type pg from 'pg';

/** CPU seconds (user + system) per process id. */
export type CpuSnapshot = Map<number, number>;

/** CPU seconds (user + system) of the given processes, from /proc/<pid>/stat. */
export function cpuOf(pids: readonly number[]): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      // The process ended.
    }
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
