/**
 * The command line of `larder sync`. The source's keys use the same flag names as Larder's own
 * keys (--app-id, --app-key, --master-key): after `sync` they name the SOURCE app (the target is
 * the configured database, which needs no keys). The remaining flags (--database-url,
 * --data-dir, --db-schema, --log-level, --config) configure the target as for every operator
 * command and are handed to loadConfig.
 */
import { CommandError } from './command-error.ts';

/** Parsed `larder sync` options. */
export interface SyncArgs {
  from: string;
  appId: string;
  appKey: string;
  masterKey: string;
  /** Only these classes (default: every class of the source). */
  classes?: string[];
  /** Seconds between incremental rounds. */
  intervalS: number;
  /** Copy once (full copy or one incremental round, plus deletions) and exit. */
  once: boolean;
  /** Seconds of overlap below the high-water mark (late commits on the source). */
  overlapS: number;
  /** Seconds between deletion reconciliations; 0 turns them off. */
  reconcileS: number;
  auth: 'sign' | 'key';
  /** Objects per scan page, 1..1000 (smaller when objects are big: LeanCloud caps an answer at 6 MB). */
  pageSize: number;
  help: boolean;
  /** Flags for loadConfig (target database settings). */
  configFlags: Record<string, string>;
}

/** Flags `larder sync` takes itself, and whether each takes a value. */
const OWN: Readonly<Record<string, boolean>> = {
  '--from': true,
  '--app-id': true,
  '--app-key': true,
  '--master-key': true,
  '--classes': true,
  '--interval': true,
  '--overlap': true,
  '--reconcile-every': true,
  '--auth': true,
  '--page-size': true,
  '--once': false,
  '--help': false,
  '-h': false,
};

export const SYNC_USAGE = `Usage: larder sync --from <base URL> --app-id <id> --app-key <key> --master-key <master key>
                   [--classes A,B] [--interval <s>] [--once] [--overlap <s>] [--reconcile-every <s>]
                   [--auth sign|key] [--page-size <n>] [--database-url <url> | --data-dir <dir>] [--db-schema <s>]

Copies every class of a running LeanCloud app (or another Larder) into the configured database
(DATABASE_URL or LARDER_DATA_DIR), then repeats by updatedAt until stopped (Ctrl-C / SIGTERM:
the current page finishes, progress is saved, exit 0). Only GET requests reach the source.
  --from             the source's API base URL (e.g. https://xxxx.lc-cn-n1-shared.com)
  --app-id, --app-key, --master-key   the SOURCE app's keys (or LARDER_SYNC_APP_ID,
                     LARDER_SYNC_APP_KEY, LARDER_SYNC_MASTER_KEY, kept out of the process list)
  --classes          comma-separated classes to copy (default: all)
  --interval         seconds between incremental rounds (default 10)
  --once             copy once and exit (full copy, or one incremental round, and deletions)
  --overlap          seconds re-read below the newest updatedAt copied (default 60)
  --reconcile-every  seconds between deletion checks, 0 = never (default 600)
  --auth             sign (X-LC-Sign, default) or key (X-LC-Key: <master>,master)
  --page-size        objects per scan request, 1-1000 (default 1000; lower it for big objects)
See docs/migrating-from-leancloud.md, "Live sync".
`;

function seconds(flag: string, raw: string | undefined, dflt: number, min: number): number {
  if (raw === undefined) return dflt;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new CommandError(`${flag} must be a number of seconds, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (n < min) throw new CommandError(`${flag} must be at least ${min}`);
  return n;
}

/**
 * Environment variables that may hold the source's keys instead of flags, so that the master key
 * need not appear in the process list (`ps`) or the shell history.
 */
const KEY_ENV: Readonly<Record<string, string>> = {
  '--app-id': 'LARDER_SYNC_APP_ID',
  '--app-key': 'LARDER_SYNC_APP_KEY',
  '--master-key': 'LARDER_SYNC_MASTER_KEY',
};

/** Parses the words after `sync`. Mistakes are CommandErrors, found before any I/O. */
export function parseSyncArgs(argv: readonly string[], env: NodeJS.ProcessEnv = {}): SyncArgs {
  const own: Record<string, string> = {};
  const configFlags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-')) throw new CommandError(`unexpected argument ${JSON.stringify(a)}\n${SYNC_USAGE}`);
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    const takesValue = name in OWN ? OWN[name] : true;
    let value = 'true';
    if (takesValue) {
      const v = inline ?? argv[i + 1];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new CommandError(`${name} needs a value`);
      if (inline === undefined) i++;
      value = v;
    } else if (inline !== undefined) throw new CommandError(`${name} takes no value`);
    if (name in OWN) own[name] = value;
    else configFlags[name] = value;
  }
  const help = own['--help'] === 'true' || own['-h'] === 'true';
  const need = (flag: string): string => {
    const v = own[flag] ?? (KEY_ENV[flag] ? env[KEY_ENV[flag]] : undefined);
    const alt = KEY_ENV[flag] ? ` (or ${KEY_ENV[flag]})` : '';
    if (v === undefined || v === '') throw new CommandError(`larder sync needs ${flag}${alt}\n${SYNC_USAGE}`);
    return v;
  };
  if (help) return { from: '', appId: '', appKey: '', masterKey: '', intervalS: 10, once: false, overlapS: 60, reconcileS: 600, auth: 'sign', pageSize: 1000, help, configFlags };
  const auth = own['--auth'] ?? 'sign';
  if (auth !== 'sign' && auth !== 'key') throw new CommandError(`--auth must be sign or key, got ${JSON.stringify(auth)}`);
  const pageRaw = own['--page-size'] ?? '1000';
  const pageSize = /^\d{1,4}$/.test(pageRaw) ? Number(pageRaw) : NaN;
  if (!(pageSize >= 1 && pageSize <= 1000)) throw new CommandError(`--page-size must be an integer from 1 to 1000, got ${JSON.stringify(pageRaw)}`);
  const classes = own['--classes']
    ?.split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (classes && !classes.length) throw new CommandError('--classes names no class');
  return {
    from: need('--from'),
    appId: need('--app-id'),
    appKey: need('--app-key'),
    masterKey: need('--master-key'),
    classes,
    intervalS: seconds('--interval', own['--interval'], 10, 0.1),
    once: own['--once'] === 'true',
    overlapS: seconds('--overlap', own['--overlap'], 60, 0),
    reconcileS: seconds('--reconcile-every', own['--reconcile-every'], 600, 0),
    auth,
    pageSize,
    help,
    configFlags,
  };
}
