/**
 * The per-app state rules (docs/architecture.md, "Per-app state"), as plain text checks over the
 * sources: dependency-cruiser sees imports, not what a file keeps. Shared by the rule test and
 * its fixture test.
 *
 * 1. Per-app state lives in the app's scope (src/app-scope.ts): no Map or WeakMap keyed by an
 *    app (`AppContext`, `AppState`, `AppScope`) anywhere else.
 * 2. A module-level container made empty (`new Map()`, `new WeakMap()`, `new Set()`,
 *    `new WeakSet()`) is state of the whole process: allowed only where listed below, with the
 *    reason it is not per-app state. A new one is either moved into a slot of the app's scope or
 *    listed here with its reason.
 * 3. Settings change in one place: nothing but src/app-scope.ts assigns `.settings` (or one of
 *    its fields); everyone else calls `app.scope.replaceSettings(next)`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The owner of per-app state and of the settings snapshot. */
export const OWNER = 'src/app-scope.ts';

/** Module-level containers that are process state on purpose: `path: name` -> why. */
export const PROCESS_STATE: Readonly<Record<string, string>> = {
  'src/auth/constant-time.ts: known': 'a bounded memo of padded buffers and sha256 digests (a pure function of the key string)',
  'src/objects/relation-fields.ts: memo': 'a memo per immutable ClassSchema object',
  'src/http/upgrade-paths.ts: claims': 'per HTTP server (a FastifyInstance), released with it',
  'src/cloud/current-user.ts: cache': 'per RequestContext (one request)',
  'src/settings/setting-catalogue.ts: catalogue': 'declarations made by code at load time, the same for every app',
  'src/errors/module-errors.ts: declared': 'declarations made by code at load time, the same for every app',
  'src/storage/prepared-statements.ts: names': 'statement names by SQL text, the same for every app',
  'src/objects/create-object.ts: singleInsertCache': 'SQL text parts of the single-object INSERT by class name (a pure function of the name), bounded',
  'src/storage/prepared-statements.ts: marked': 'marks on SQL fragment objects',
  'src/storage/prepared-statements.ts: shapes': 'marks on SQL fragment objects',
  'src/storage/heavy-lane.ts: marked': 'marks on SQL fragment objects',
  'src/storage/narrow-reads.ts: marked': 'marks on SQL fragment objects',
  'src/storage/pg-statement.ts: described': 'weakly keyed by a pg connection: the result columns of the statements prepared on it, released with it',
  'src/storage/table-access-paths.ts: caches': 'weakly keyed by a Database object (one app\'s database), released with it',
  'src/storage/pool-metrics.ts: pools': 'weak references to open pools for the process-wide /metrics gauge',
  'src/storage/pglite-worker.mjs: preparedNames': 'inside the embedded engine worker thread (one database)',
  'src/storage/pglite-worker.mjs: listening': 'inside the embedded engine worker thread (one database): its channels',
  'src/cloud/engine-request.ts: checkedNames': 'header names already checked (a pure function of the name), bounded',
  'src/modules/files/md5-thread.mjs: hashes': 'inside the process\'s md5 thread (off-thread-md5.ts): one md5 per large upload in progress, forgotten when it ends',
  'src/export/export-worker.ts: liveOwners': 'lease owners alive in this process: a lease names a process',
};

const APP_KEYED = /\b(?:Weak)?Map\s*<\s*(?:AppContext|AppState|AppScope)\b/;
const MODULE_LEVEL_EMPTY = /^(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*new\s+(?:WeakMap|Map|WeakSet|Set)\s*(?:<[^(]*>)?\(\s*\)/;
const SETTINGS_ASSIGNMENT = /\.settings(?:\??\.[\w$]+|\[[^\]]*\])*\s*(?:=(?!=)|\+=|-=|\|\|=|&&=|\?\?=)/;

/** The rule violations of one source file (`path` relative to the tree root). */
export function appStateViolations(path: string, text: string): string[] {
  if (path === OWNER) return [];
  const out: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const at = `${path}:${i + 1}`;
    if (APP_KEYED.test(line)) out.push(`app-keyed map outside ${OWNER}: ${at}`);
    const m = MODULE_LEVEL_EMPTY.exec(line);
    if (m && !(`${path}: ${m[1]}` in PROCESS_STATE)) out.push(`module-level state not in the app scope nor listed as process state: ${at} (${m[1]})`);
    if (SETTINGS_ASSIGNMENT.test(line)) out.push(`settings assigned outside ${OWNER} (use app.scope.replaceSettings): ${at}`);
  });
  return out;
}

/** The source files under `dir` (TypeScript and .mjs, tests included), relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'fixture') walk(p);
      } else if (/\.(?:ts|mjs)$/.test(e.name)) out.push(relative(root, p));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/** Every violation in the tree: rules 1 and 2 in src/ (tests excluded), rule 3 in src/ and test/. */
export function treeViolations(root: string): string[] {
  const out: string[] = [];
  for (const dir of ['src', 'test']) {
    for (const path of sourceFiles(root, dir)) {
      if (path.startsWith('test/architecture/')) continue; // the rules and their own bad examples
      const found = appStateViolations(path, readFileSync(join(root, path), 'utf8'));
      const isTest = dir === 'test' || path.endsWith('.test.ts');
      out.push(...(isTest ? found.filter((v) => v.startsWith('settings assigned')) : found));
    }
  }
  return out;
}
