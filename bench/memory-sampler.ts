import { readFileSync } from 'node:fs';

/** Peak resident memory seen while sampling, in MB. */
export interface MemoryPeak {
  /** Highest RSS of any one server process (workers and the cluster primary). */
  perProcessMb: number;
  /** Highest simultaneous sum over all server processes (primary included). */
  totalMb: number;
  /** Highest RSS of the cluster primary, when it is not itself a worker (it serves no requests). */
  primaryMb?: number;
  /** Number of samples taken. */
  samples: number;
}

/** VmRSS of a process in MB, from /proc/<pid>/status; undefined when it is gone. */
export function rssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** RSS of a process in MB after it has been idle 3 s (allocator and GC settle); NaN when it is gone. */
export async function settledRssMb(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 3000));
  return rssMb(pid) ?? NaN;
}

/**
 * Samples the RSS of the server's processes on a timer while load runs. The pid list is asked
 * for at every tick, so a worker restarted by the cluster primary is still counted.
 */
export class MemorySampler {
  private peakPerProcess = 0;
  private peakTotal = 0;
  private peakPrimary: number | undefined;
  private samples = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: () => { primary?: number; workers: number[] },
    private readonly intervalMs = 250,
  ) {}

  /** Takes one sample now. */
  sample(): void {
    const { primary, workers } = this.pids();
    let total = 0;
    for (const pid of workers) {
      const mb = rssMb(pid) ?? 0;
      total += mb;
      this.peakPerProcess = Math.max(this.peakPerProcess, mb);
    }
    if (primary !== undefined && !workers.includes(primary)) {
      const mb = rssMb(primary) ?? 0;
      total += mb;
      this.peakPrimary = Math.max(this.peakPrimary ?? 0, mb);
      this.peakPerProcess = Math.max(this.peakPerProcess, mb);
    }
    this.peakTotal = Math.max(this.peakTotal, total);
    this.samples++;
  }

  /** Starts sampling (idempotent). */
  start(): void {
    if (this.timer) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops sampling; peaks are kept across start/stop pairs. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The peaks so far. */
  peak(): MemoryPeak {
    return { perProcessMb: this.peakPerProcess, totalMb: this.peakTotal, primaryMb: this.peakPrimary, samples: this.samples };
  }
}
