/**
 * Settings of the export runner, from the configuration (LARDER_EXPORT_*; docs/running.md),
 * plus the fixed timings of leases and polling.
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
const HOUR = 60 * 60 * 1000;
/** Timings every runner shares. */
export const EXPORT_TIMINGS = { pageSize: 1000, leaseMs: 30_000, pollMs: 5_000, cleanupMs: HOUR };
/**
 * The export directory: LARDER_EXPORT_DIR, else `<data dir>/exports` on the embedded engine,
 * else a directory per schema under the system's temporary directory (PostgreSQL).
 */
export function exportDirOf(config) {
    if (config.exportDir)
        return resolve(config.exportDir);
    if (!config.databaseUrl)
        return resolve(config.dataDir, 'exports');
    return join(tmpdir(), 'larder-exports', config.dbSchema);
}
/** The runner's options from the configuration. */
export function exportOptionsFromConfig(config) {
    return {
        dir: exportDirOf(config),
        linkTtlMs: config.exportLinkTtlHours * HOUR,
        pageDelayMs: config.exportPageDelayMs,
        ...EXPORT_TIMINGS,
    };
}
//# sourceMappingURL=export-options.js.map