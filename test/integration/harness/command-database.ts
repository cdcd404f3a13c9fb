import { openConfiguredDatabase } from '../../../src/cli/serve.ts';
import { loadConfig } from '../../../src/config.ts';
import { openApp } from '../../../src/open-app.ts';
import type { Database } from '../../../src/storage/database.ts';
import { TEST_KEYS } from './engines.ts';

/**
 * Opens the database a command run with `env` uses (as an app, so its tables exist), runs `work`
 * on it and closes it again before the next command runs: PGlite has one owner.
 */
export async function withCommandDb<T>(env: Record<string, string>, work: (db: Database) => Promise<T>): Promise<T> {
  const { db, lock } = await openConfiguredDatabase({ ...loadConfig(env, {}), poolSize: 2 });
  try {
    await openApp({ db, keys: TEST_KEYS, masterSignWindowMs: 60_000 });
    return await work(db);
  } finally {
    await db.close();
    lock?.release();
  }
}
