/**
 * `larder import <path>`: reads a LeanCloud data export (archive, folder, or file) into the
 * configured database (src/migration/import-run.ts). Prints a progress line on a terminal (plain
 * lines otherwise), every record error with its file and line on stderr, and a summary per
 * class. Exit status: 0 when everything was imported, 1 when any record or file failed or the
 * input broke off (the rest is imported all the same), 2 for a mistake on the command line.
 */
import { loadConfig, SETTINGS } from '../config.js';
import { ClassRegistry } from '../schema/class-registry.js';
import { DEFAULT_BATCH_SIZE, DEFAULT_CONCURRENCY, runImport } from '../migration/import-run.js';
import { parseArgs } from './args.js';
import { CommandError } from './command-error.js';
import { withCommandDatabase } from './command-database.js';
import { printImportSummary } from './import-summary.js';
/** The usage text of `larder import --help`. */
export const IMPORT_USAGE = `Usage: larder import <path> [options]

Imports a LeanCloud data export into this server's database (docs/migrating-from-leancloud.md).
<path> is the export archive (.tar.gz, .tgz, .tar), a folder of its files, or one file:
  <Class>.<n>.jsonl                     objects, one per line (header line optional)
  <Class>.json                          objects as {"results": [...]} (exports before 2021)
  _Join:<column>:<Class>.<n>.jsonl      relation members, {"owningId", "relatedId"} per line
  <Class>_schema.json                   column types
Running it again is safe: objects are matched by objectId and only newer data is written.

Options:
  --classes <A,B,...>   import only these classes (and the relations they own)
  --dry-run             read and check everything, write nothing (no database is opened)
  --batch-size <n>      objects per INSERT (default ${DEFAULT_BATCH_SIZE})
  --concurrency <n>     batches written at once (default ${DEFAULT_CONCURRENCY})
  plus the database options of 'larder --help' (--database-url, --data-dir, --db-schema, --config)

Exit status: 0 all imported; 1 some records or files could not be imported, or the input
broke off (everything else was imported; errors name file and line); 2 bad command line.
`;
/** Flags that are configuration (database settings and the rest of `larder --help`). */
const CONFIG_FLAG_NAMES = new Set([...SETTINGS.map((s) => s.flag), '--config']);
function positiveInt(flag, v, max) {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > max)
        throw new CommandError(`${flag} takes a whole number from 1 to ${max}`);
    return n;
}
/** Parses the words after `import`. */
export function parseImportArgs(argv) {
    const rest = [];
    let dryRun = false;
    for (const a of argv) {
        if (a === '--dry-run')
            dryRun = true;
        else
            rest.push(a);
    }
    let parsed;
    try {
        parsed = parseArgs(rest);
    }
    catch (err) {
        throw new CommandError(err.message);
    }
    const { '--classes': classes, '--batch-size': batch, '--concurrency': conc, ...configFlags } = parsed.flags;
    if (parsed.help)
        return { path: '', dryRun, batchSize: DEFAULT_BATCH_SIZE, concurrency: DEFAULT_CONCURRENCY, help: true, configFlags };
    if (parsed.words.length !== 1) {
        const unknown = Object.keys(configFlags).find((f) => !CONFIG_FLAG_NAMES.has(f));
        throw new CommandError(unknown ? `unknown option ${unknown}. Run 'larder import --help' for usage.` : `'import' takes one path.\n${IMPORT_USAGE}`);
    }
    return {
        path: parsed.words[0],
        classes: classes === undefined ? undefined : new Set(classes.split(',').map((c) => c.trim()).filter(Boolean)),
        dryRun,
        batchSize: batch === undefined ? DEFAULT_BATCH_SIZE : positiveInt('--batch-size', batch, 10000),
        concurrency: conc === undefined ? DEFAULT_CONCURRENCY : positiveInt('--concurrency', conc, 16),
        help: false,
        configFlags,
    };
}
/** Characters of the progress bar. */
const BAR_WIDTH = 24;
/** Most record errors printed; the summary still counts all of them. */
const MAX_PRINTED_ERRORS = 200;
function consoleEvents(out, err, started) {
    const tty = out.isTTY === true;
    let printed = 0;
    let lastDraw = 0;
    let lastFile = '';
    let nextPlain = 100_000;
    let drawn = false;
    const clear = () => {
        if (drawn)
            out.write('\r\x1b[K');
        drawn = false;
    };
    return {
        clear,
        recordError(where, reason) {
            printed++;
            if (printed > MAX_PRINTED_ERRORS)
                return;
            clear();
            err.write(`error: ${where}: ${reason}\n`);
            if (printed === MAX_PRINTED_ERRORS)
                err.write(`error: (further record errors are counted in the summary, not shown)\n`);
        },
        note(message) {
            clear();
            err.write(`note: ${message}\n`);
        },
        progress(read, file, bytes) {
            const now = Date.now();
            const rate = Math.round(read / Math.max(0.001, (now - started) / 1000));
            const share = bytes.total > 0 ? Math.min(1, bytes.read / bytes.total) : 0;
            if (tty) {
                if (now - lastDraw < 100)
                    return;
                lastDraw = now;
                const filled = Math.round(share * BAR_WIDTH);
                const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
                out.write(`\r\x1b[K${bar} ${read.toLocaleString('en-US')} objects, ${rate.toLocaleString('en-US')}/s, ${file}`.slice(0, (out.columns || 120) - 1));
                drawn = true;
                return;
            }
            if (file !== lastFile)
                out.write(`reading ${file}\n`);
            lastFile = file;
            if (read >= nextPlain) {
                out.write(`${read.toLocaleString('en-US')} objects read (${Math.floor(share * 100)}% of the input, ${rate.toLocaleString('en-US')}/s)\n`);
                nextPlain = read + 100_000;
            }
        },
    };
}
/** Runs `larder import`; returns the exit status. */
export async function importCommand(argv, env) {
    const args = parseImportArgs(argv);
    if (args.help) {
        process.stdout.write(IMPORT_USAGE);
        return 0;
    }
    // Read (and so checked: an unknown option is an error) even for a dry run, which opens no database.
    const config = loadConfig(env, args.configFlags);
    const started = Date.now();
    const events = consoleEvents(process.stdout, process.stderr, started);
    const run = (target) => runImport({ path: args.path, target, classes: args.classes, batchSize: args.batchSize, concurrency: args.concurrency, events }).catch((err) => {
        // A missing path is the operator's mistake, not a crash.
        if (err instanceof Error && err.message.startsWith('no such file or folder'))
            throw new CommandError(err.message);
        throw err;
    });
    let result;
    if (args.dryRun) {
        result = await run();
    }
    else {
        // A few connections per batch in flight; no statement timeout (a batch may wait on locks).
        const dbConfig = { ...config, statementTimeoutMs: 0, poolSize: args.concurrency + 2 };
        result = await withCommandDatabase(dbConfig, async (db) => {
            const classes = new ClassRegistry(db);
            await classes.load();
            return run({ db, classes });
        });
    }
    events.clear();
    printImportSummary(result, { path: args.path, seconds: (Date.now() - started) / 1000, dryRun: args.dryRun }, (line) => process.stdout.write(`${line}\n`));
    return result.failures > 0 || result.broken ? 1 : 0;
}
//# sourceMappingURL=import-command.js.map