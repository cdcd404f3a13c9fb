/**
 * Per-app state is owned by the app's scope and settings change in one place (app-state-rules.ts,
 * docs/architecture.md "Per-app state"). The fixture cases prove each rule can fail.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { appStateViolations, PROCESS_STATE, treeViolations } from './app-state-rules.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('no per-app state outside the app scope, no settings assigned outside it', () => {
  assert.deepEqual(treeViolations(ROOT), []);
});

test('every listed piece of process state still exists (the list does not go stale)', () => {
  for (const key of Object.keys(PROCESS_STATE)) {
    const [path, name] = key.split(': ');
    const text = readFileSync(join(ROOT, path), 'utf8');
    assert.match(text, new RegExp(`^(?:export\\s+)?(?:const|let|var)\\s+${name}\\b`, 'm'), key);
  }
});

test('the rules fail on code that breaks each of them', () => {
  const src = [
    "const hubs = new WeakMap<AppContext, Hub>();",
    "export const cache = new Map<string, number>();",
    "let seen = new Set();",
    "function f() { const local = new Map<AppState, string>(); }",
    "  app.settings = await loadSettings(app.db);",
    "  h().app.settings.emailVerification = false;",
    "  app.settings['x'] ??= 1;",
  ].join('\n');
  assert.deepEqual(appStateViolations('src/x/y.ts', src), [
    'app-keyed map outside src/app-scope.ts: src/x/y.ts:1',
    'module-level state not in the app scope nor listed as process state: src/x/y.ts:1 (hubs)',
    'module-level state not in the app scope nor listed as process state: src/x/y.ts:2 (cache)',
    'module-level state not in the app scope nor listed as process state: src/x/y.ts:3 (seen)',
    'app-keyed map outside src/app-scope.ts: src/x/y.ts:4',
    'settings assigned outside src/app-scope.ts (use app.scope.replaceSettings): src/x/y.ts:5',
    'settings assigned outside src/app-scope.ts (use app.scope.replaceSettings): src/x/y.ts:6',
    'settings assigned outside src/app-scope.ts (use app.scope.replaceSettings): src/x/y.ts:7',
  ]);
  const fine = [
    "const KEYS = new Set(['a', 'b']);",
    "const SLOT = appSlot<Hub>('friends.hub');",
    "  if (app.settings === other) return;",
    "  const s = app.settings.emailVerification;",
    "  private readonly byUser = new Map<string, Set<HubSocket>>();",
  ].join('\n');
  assert.deepEqual(appStateViolations('src/x/y.ts', fine), []);
  assert.deepEqual(appStateViolations('src/app-scope.ts', src), [], 'the owner may');
});
