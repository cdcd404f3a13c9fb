/**
 * Settings of the export runner, from the configuration (LARDER_EXPORT_*; docs/running.md),
 * plus the fixed timings of leases and polling.
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from '../config.ts';

/** How the runner works. */
export interface ExportOptions {
  /** Where archives and spool files live. */
  dir: string;
  /** How long a download link works after the job ends, ms. */
  linkTtlMs: number;
  /** Pause between two pages, ms (spares the database; 0 = none). */
  pageDelayMs: number;
  /** Rows per page. */
  pageSize: number;
  /** How long a claimed job stays with its runner without a heartbeat, ms. */
  leaseMs: number;
  /** How often an idle runner looks for jobs (besides being woken by a new one), ms. */
  pollMs: number;
  /** How often expired archives are deleted, ms. */
  cleanupMs: number;
}

const HOUR = 60 * 60 * 1000;

/** Timings every runner shares. */
export const EXPORT_TIMINGS = { pageSize: 1000, leaseMs: 30_000, pollMs: 5_000, cleanupMs: HOUR } as const;

/**
 * The export directory: LARDER_EXPORT_DIR, else `<data dir>/exports` on the embedded engine,
 * else a directory per schema under the system's temporary directory (PostgreSQL).
 */
export function exportDirOf(config: Pick<Config, 'exportDir' | 'dataDir' | 'databaseUrl' | 'dbSchema'>): string {
  if (config.exportDir) return resolve(config.exportDir);
  if (!config.databaseUrl) return resolve(config.dataDir, 'exports');
  return join(tmpdir(), 'larder-exports', config.dbSchema);
}

/** The runner's options from the configuration. */
export function exportOptionsFromConfig(config: Config): ExportOptions {
  return {
    dir: exportDirOf(config),
    linkTtlMs: config.exportLinkTtlHours * HOUR,
    pageDelayMs: config.exportPageDelayMs,
    ...EXPORT_TIMINGS,
  };
}
