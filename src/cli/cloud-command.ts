/**
 * `larder engine refresh|status` and `larder schedule list|add|set|remove|runs`: the cloud code
 * admin API (docs/cloud-code.md) from the command line, against the configured database. On
 * PostgreSQL they work next to running servers (a refresh reaches them through pg_notify); the
 * embedded engine is locked by a running server, so there use the admin endpoint instead.
 */
import type { AppKeys } from '../auth/app-keys.ts';
import { CloudCode } from '../cloud/cloud-code.ts';
import { cloudOptionsFromConfig } from '../cloud/cloud-options.ts';
import { HookList } from '../cloud/hook-list.ts';
import { changeSchedule, createSchedule, deleteSchedule, listSchedules, scheduleRuns } from '../cloud/schedules.ts';
import type { Config } from '../config.ts';
import { createLogger } from '../log.ts';
import { sql } from '../sql/fragment.ts';
import type { Database } from '../storage/database.ts';
import { CommandError } from './command-error.ts';
import { withCommandDatabase } from './command-database.ts';

const USAGE = [
  'usage: larder engine refresh             read the engine hook list again (needs LARDER_ENGINE_URL)',
  '       larder engine status              the hook list every Larder process uses',
  '       larder schedule add \'{"function":"daily","cron":"0 3 * * *","params":{},"production":true,"timezone":"UTC"}\'',
  '       larder schedule list',
  "       larder schedule set <id> '<json>'  e.g. '{\"enabled\":false}'",
  '       larder schedule remove <id>',
  '       larder schedule runs <id>',
].join('\n');

function json(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CommandError(`${what} is not valid JSON: ${text.slice(0, 200)}\n${USAGE}`);
  }
}

async function storedKeys(db: Database): Promise<AppKeys> {
  const rows = await db.query<{ value: AppKeys }>(sql`SELECT value FROM _larder_meta WHERE key = 'app'`);
  const keys = rows[0]?.value;
  if (!keys?.hookKey) throw new CommandError('this database has no app keys yet: start `larder serve` once first');
  return keys;
}

async function engine(config: Config, db: Database, sub: string | undefined): Promise<unknown> {
  if (sub === 'status') {
    const list = new HookList();
    await list.load(db);
    return list.snapshot();
  }
  if (sub !== 'refresh') throw new CommandError(USAGE);
  const options = cloudOptionsFromConfig(config);
  if (!options) throw new CommandError('LARDER_ENGINE_URL is not set: which engine should be asked?');
  const cloud = new CloudCode(options, createLogger('silent'));
  try {
    return { result: await cloud.refresh({ keys: await storedKeys(db), db }) };
  } finally {
    await cloud.close();
  }
}

async function schedule(db: Database, sub: string | undefined, rest: readonly string[]): Promise<unknown> {
  switch (sub) {
    case 'list':
      return { results: await listSchedules(db) };
    case 'add':
      if (rest.length !== 1) break;
      return createSchedule(db, json(rest[0], 'the schedule'));
    case 'set':
      if (rest.length !== 2) break;
      return changeSchedule(db, rest[0], json(rest[1], 'the change'));
    case 'remove':
      if (rest.length !== 1) break;
      await deleteSchedule(db, rest[0]);
      return {};
    case 'runs':
      if (rest.length !== 1) break;
      return { results: await scheduleRuns(db, rest[0]) };
  }
  throw new CommandError(USAGE);
}

/** Runs `larder engine ...` or `larder schedule ...` and prints the JSON result. */
export async function cloudCommand(config: Config, command: 'engine' | 'schedule', args: readonly string[], print: (line: string) => void): Promise<void> {
  const [sub, ...rest] = args;
  const out = await withCommandDatabase(config, (db) => (command === 'engine' ? engine(config, db, sub) : schedule(db, sub, rest)));
  print(JSON.stringify(out, null, 2));
}
