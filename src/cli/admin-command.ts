import { AppScope } from '../app-scope.ts';
import type { AppState } from '../auth/cache-invalidation.ts';
import { getClassPermissions, getDefaultAcl, setClassPermissions, setDefaultAcl } from '../auth/class-security-admin.ts';
import type { Config } from '../config.ts';
import { ClassRegistry } from '../schema/class-registry.ts';
import { loadSettings } from '../settings/app-settings.ts';
import { changeSettings, readSettings } from '../admin/change-settings.ts';
import { CommandError } from './command-error.ts';
// Declares the modules' settings (friends...) in the catalogue that `larder settings` checks against.
import '../modules/index.ts';
import { withCommandDatabase } from './command-database.ts';
import { adminRequest, findRunningServer } from './running-server.ts';
import { resolve } from 'node:path';

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

/** The admin request that does `cmd` on a running server (the same use-case, over HTTP). */
export function adminHttpRequest(cmd: AdminCommand): { method: 'GET' | 'PUT'; path: string; body?: unknown } {
  const cls = (c: string, what: string) => `/1.1/larder/classes/${encodeURIComponent(c)}/${what}`;
  switch (cmd.kind) {
    case 'settings-get':
      return { method: 'GET', path: '/1.1/larder/settings' };
    case 'settings-set':
      return { method: 'PUT', path: '/1.1/larder/settings', body: cmd.change };
    case 'permissions-get':
      return { method: 'GET', path: cls(cmd.className, 'permissions') };
    case 'permissions-set':
      return { method: 'PUT', path: cls(cmd.className, 'permissions'), body: cmd.value };
    case 'default-acl-get':
      return { method: 'GET', path: cls(cmd.className, 'defaultACL') };
    case 'default-acl-set':
      return { method: 'PUT', path: cls(cmd.className, 'defaultACL'), body: { defaultACL: cmd.value } };
  }
}

/**
 * `larder settings|permissions|default-acl`: the admin endpoint's use-cases from the command
 * line (docs/admin.md). Opens the configured database (migrating it), runs the change, prints the
 * result as JSON. On PostgreSQL running servers hear the change and reload at once. On the
 * embedded engine a running server holds the data directory: then the command is sent to that
 * server's admin API instead (running-server.ts).
 */
export async function adminCommand(config: Config, command: string, args: string[], print: (line: string) => void): Promise<void> {
  const cmd = parseAdminArgs(command, args);
  const running = config.databaseUrl ? undefined : findRunningServer(resolve(config.dataDir));
  if (running) {
    const req = adminHttpRequest(cmd);
    print(JSON.stringify(await adminRequest(running, req.method, req.path, req.body), null, 2));
    return;
  }
  await withCommandDatabase({ ...config, poolSize: 2 }, async (db) => {
    const classes = new ClassRegistry(db);
    await classes.load();
    const app: AppState = { db, classes, scope: new AppScope(await loadSettings(db)) };
    print(JSON.stringify(await run(app, cmd), null, 2));
  });
}
