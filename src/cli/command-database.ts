import type { Config } from '../config.ts';
import { isApiError } from '../errors/api-error.ts';
import type { Database } from '../storage/database.ts';
import { migrate } from '../storage/migrations.ts';
import { CommandError } from './command-error.ts';
import { openConfiguredDatabase } from './serve.ts';

/** An operator command's settings: no embedded slice (see withCommandDatabase). */
export function toolConfig(config: Config): Config {
  return { ...config, embeddedSliceMs: 0 };
}

/**
 * Runs an operator command against the configured database: opens it (taking the data-dir
 * lock on the embedded engine), migrates it, runs `work`, and always closes it. Only migrations
 * run, not openApp: keys are none of a command's business (openApp would generate and store
 * keys on a fresh database without anyone seeing them). An ApiError becomes a CommandError
 * (main prints it and exits 2).
 *
 * The embedded engine's slice is off (toolConfig): the command holds the data-dir lock, so no
 * request waits for the engine, and cutting one of its statements because another of its own
 * waits (an import writes several batches at once) would only fail the command.
 */
export async function withCommandDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  const { db, lock } = await openConfiguredDatabase(toolConfig(config));
  try {
    await migrate(db);
    return await work(db);
  } catch (err) {
    if (isApiError(err)) throw new CommandError(err.message);
    throw err;
  } finally {
    await db.close();
    lock?.release();
  }
}
