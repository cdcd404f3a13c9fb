import type { AppState } from '../auth/cache-invalidation.ts';
import { getClassPermissions, getDefaultAcl, setClassPermissions, setDefaultAcl } from '../auth/class-security-admin.ts';
import type { Config } from '../config.ts';
import { ClassRegistry } from '../schema/class-registry.ts';
import { loadSettings } from '../settings/app-settings.ts';
import { changeSettings, readSettings } from '../settings/change-settings.ts';
import { CommandError } from './command-error.ts';
import { withCommandDatabase } from './command-database.ts';

const USAGE = [
  'usage: larder settings get',
  '       larder settings set <key> <json>',
  '       larder permissions get <class>',
  "       larder permissions set <class> '<json>'",
  '       larder default-acl get <class>',
  "       larder default-acl set <class> '<json>|null'",
].join('\n');

/** A parsed admin command line. */
export type AdminCommand =
  | { kind: 'settings-get' }
  | { kind: 'settings-set'; change: Record<string, unknown> }
  | { kind: 'permissions-get' | 'default-acl-get'; className: string }
  | { kind: 'permissions-set' | 'default-acl-set'; className: string; value: unknown };

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CommandError(`${what} is not valid JSON: ${text.slice(0, 200)}\n${USAGE}`);
  }
}

/** Parses `settings|permissions|default-acl <sub> ...`; mistakes are found before any I/O. */
export function parseAdminArgs(command: string, args: readonly string[]): AdminCommand {
  const [sub, ...rest] = args;
  if (command === 'settings') {
    if (sub === 'get' && rest.length === 0) return { kind: 'settings-get' };
    if (sub === 'set' && rest.length === 2) return { kind: 'settings-set', change: { [rest[0]]: parseJson(rest[1], `the value of ${rest[0]}`) } };
  } else if (command === 'permissions' || command === 'default-acl') {
    if (sub === 'get' && rest.length === 1) return { kind: `${command}-get`, className: rest[0] };
    if (sub === 'set' && rest.length === 2) return { kind: `${command}-set`, className: rest[0], value: parseJson(rest[1], 'the value') };
  }
  throw new CommandError(USAGE);
}

async function run(app: AppState, cmd: AdminCommand): Promise<unknown> {
  switch (cmd.kind) {
    case 'settings-get':
      return readSettings(app);
    case 'settings-set':
      return changeSettings(app, cmd.change);
    case 'permissions-get':
      return getClassPermissions(app, cmd.className);
    case 'permissions-set':
      return setClassPermissions(app, cmd.className, cmd.value);
    case 'default-acl-get':
      return { defaultACL: await getDefaultAcl(app, cmd.className) };
    case 'default-acl-set':
      return { defaultACL: await setDefaultAcl(app, cmd.className, cmd.value) };
  }
}

/**
 * `larder settings|permissions|default-acl`: the admin endpoint's use-cases from the command
 * line (docs/admin.md). Opens the configured database (migrating it; on the embedded engine
 * this needs the server stopped, as it holds the data directory), runs the change, prints the
 * result as JSON. On PostgreSQL running servers hear the change and reload at once.
 */
export async function adminCommand(config: Config, command: string, args: string[], print: (line: string) => void): Promise<void> {
  const cmd = parseAdminArgs(command, args);
  await withCommandDatabase({ ...config, poolSize: 2 }, async (db) => {
    const classes = new ClassRegistry(db);
    await classes.load();
    const app: AppState = { db, classes, settings: await loadSettings(db) };
    print(JSON.stringify(await run(app, cmd), null, 2));
  });
}
