/**
 * `larder files pull`: copies every file whose record still points at another host (LeanCloud's
 * file domain) into this server's file storage (src/modules/files/pull/). Progress on a terminal
 * (plain lines otherwise), one `error: <objectId> <name>: <reason>` line per failed file, and a
 * summary. Exit status: 0 everything moved, 1 some files failed (run it again: it resumes),
 * 2 a mistake on the command line or in the settings.
 */
import { loadConfig, SETTINGS } from '../config.ts';
import { filesOptionsFromConfig, openFileStore, pullFiles, type BlobStore, type PullProgress } from '../modules/index.ts';
import { parseArgs } from './args.ts';
import { CommandError } from './command-error.ts';
import { withCommandDatabase } from './command-database.ts';

/** The usage text of `larder files --help`. */
export const FILES_USAGE = `Usage: larder files pull [options]

Copies the bytes of every _File record whose url is not in this server's storage yet (after
'larder import' or 'larder sync' from LeanCloud) into it, checks size and md5 when the record
has them, and rewrites the record's url (docs/files.md, docs/migrating-from-leancloud.md).
Safe to interrupt and to run again: finished files are skipped, failed ones retried.

Options:
  --dry-run              list what would move (objectId, size, url); change nothing
  --concurrency <n>      files downloaded at once (default 4, at most 64)
  --retries <n>          retries of a failed download (network error, timeout, 408, 429, 5xx;
                         default 4), with exponential backoff
  --timeout-ms <n>       give up on a download after this long without data (default 30000)
  --backoff-ms <n>       first backoff (default 1000; doubled each retry)
  plus the settings of 'larder --help' (database, LARDER_FILES_*, LARDER_S3_*, LARDER_PUBLIC_URL)

The new urls start with LARDER_FILES_PUBLIC_URL, else LARDER_PUBLIC_URL + /files: set one.
With the embedded engine, stop the server first (one process owns the data directory).
`;

const CONFIG_FLAG_NAMES: ReadonlySet<string> = new Set([...SETTINGS.map((s) => s.flag), '--config']);

function intFlag(flags: Record<string, string>, flag: string, def: number, min: number, max: number): number {
  const v = flags[flag];
  if (v === undefined) return def;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new CommandError(`${flag} takes a whole number from ${min} to ${max}`);
  return n;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function progressPrinter(out: NodeJS.WriteStream): { draw(p: PullProgress): void; clear(): void } {
  const tty = out.isTTY === true;
  let drawn = false;
  let lastDraw = 0;
  return {
    draw(p) {
      const now = Date.now();
      if (tty) {
        if (now - lastDraw < 100 && p.done < p.total) return;
        lastDraw = now;
        const share = p.total ? p.done / p.total : 1;
        const filled = Math.round(share * 24);
        out.write(`\r\x1b[K[${'#'.repeat(filled)}${'-'.repeat(24 - filled)}] ${p.done}/${p.total} files, ${mb(p.bytes)}${p.failed ? `, ${p.failed} failed` : ''}`);
        drawn = true;
      } else if (p.done === p.total || p.done % 100 === 0) {
        out.write(`${p.done}/${p.total} files, ${mb(p.bytes)}${p.failed ? `, ${p.failed} failed` : ''}\n`);
      }
    },
    clear() {
      if (drawn) out.write('\r\x1b[K');
      drawn = false;
    },
  };
}

/** Runs `larder files <subcommand>`; returns the exit status. */
export async function filesCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const dryRun = argv.includes('--dry-run');
  let parsed;
  try {
    parsed = parseArgs(argv.filter((a) => a !== '--dry-run'));
  } catch (err) {
    throw new CommandError((err as Error).message);
  }
  if (parsed.help || parsed.words.length === 0) {
    process.stdout.write(FILES_USAGE);
    return parsed.help ? 0 : 2;
  }
  if (parsed.words.length !== 1 || parsed.words[0] !== 'pull') throw new CommandError(`unknown files command '${parsed.words.join(' ')}'. Run 'larder files --help'.`);
  const { '--concurrency': _c, '--retries': _r, '--timeout-ms': _t, '--backoff-ms': _b, ...configFlags } = parsed.flags;
  void [_c, _r, _t, _b];
  const unknown = Object.keys(configFlags).find((f) => !CONFIG_FLAG_NAMES.has(f));
  if (unknown) throw new CommandError(`unknown option ${unknown}. Run 'larder files --help' for usage.`);
  const concurrency = intFlag(parsed.flags, '--concurrency', 4, 1, 64);
  const retries = intFlag(parsed.flags, '--retries', 4, 0, 20);
  const idleTimeoutMs = intFlag(parsed.flags, '--timeout-ms', 30_000, 100, 3_600_000);
  const backoffMs = intFlag(parsed.flags, '--backoff-ms', 1000, 0, 60_000);
  const config = loadConfig(env, configFlags);
  const files = filesOptionsFromConfig(config);
  const base = files.publicUrl ?? (config.publicUrl ? `${config.publicUrl.replace(/\/+$/, '')}/files` : undefined);
  if (!base) throw new CommandError('set LARDER_PUBLIC_URL (or LARDER_FILES_PUBLIC_URL): the new file urls are built from it.');
  const store: BlobStore = await openFileStore(files);
  const printer = progressPrinter(process.stdout);
  const started = Date.now();
  try {
    const summary = await withCommandDatabase({ ...config, poolSize: concurrency + 2 }, (db) =>
      pullFiles({
        db, store, filesBaseUrl: base, maxBytes: files.maxBytes, concurrency, retries, idleTimeoutMs, backoffMs, dryRun,
        progress: dryRun ? undefined : (p) => printer.draw(p),
        listed: (c) => process.stdout.write(`${c.object_id}  ${typeof c.meta?.size === 'number' ? c.meta.size : '?'}  ${c.url}\n`),
      }),
    );
    printer.clear();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (dryRun) {
      console.log(`dry run: ${summary.wouldMove} files (${mb(summary.wouldMoveBytes)} declared) would move; ${summary.alreadyStored} are already stored here. Nothing was changed.`);
      return 0;
    }
    for (const f of summary.failures) console.error(`error: ${f.objectId} ${f.name}: ${f.reason}`);
    console.log(`moved ${summary.moved} files (${mb(summary.bytes)}) in ${seconds} s; ${summary.failures.length} failed; ${summary.alreadyStored} were already stored here.`);
    if (summary.failures.length) console.log(`Run 'larder files pull' again to retry the failed files.`);
    return summary.failures.length ? 1 : 0;
  } finally {
    await store.close();
  }
}
