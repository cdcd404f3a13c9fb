/**
 * The layering rules (docs/architecture.md, "Dependency rules"), checked on every `npm test` with
 * dependency-cruiser: modules reach the core only through src/module-api/, the core never imports
 * a module, and no import cycle between folders exists. The fixture test proves each rule
 * can fail.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { cruiseTree, folderCycleEdges, violations } from './cruise.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixture/', import.meta.url));

test('src/ follows the module and core rules and has no import cycle between folders', () => {
  const result = cruiseTree(ROOT);
  assert.ok(result.modules.length > 400, `the cruise saw the source tree (${result.modules.length} files)`);
  assert.deepEqual(violations(result), [], 'see .dependency-cruiser.cjs for the rule (modules import src/module-api/ only; callers use the planner through src/plan/index.ts)');
  assert.deepEqual(folderCycleEdges(result), [], 'import cycle between folders: these folder edges lie on a cycle');
});

test('the rules fail on a fixture that breaks each of them', () => {
  const result = cruiseTree(FIXTURE);
  assert.deepEqual(violations(result).sort(), [
    'acl-clause-only-in-planner: src/core/uses-planner.ts -> src/query/sql/compile-subquery.ts',
    'core-not-into-modules: src/core/uses-module.ts -> src/modules/good/good.ts',
    'modules-only-through-module-api: src/modules/bad/bad.ts -> src/core/secret.ts',
    'modules-only-through-module-api: src/modules/bad/bad.ts -> src/modules/good/good.ts',
    'planner-only-through-its-index: src/core/uses-planner.ts -> src/plan/acl.ts',
  ]);
  const edges = folderCycleEdges(result);
  assert.ok(edges.includes('a -> b') && edges.includes('b -> a'), `the a <-> b folder cycle is found: ${edges.join(', ')}`);
  assert.ok(!edges.some((e) => e.startsWith('modules/bad')), 'a folder off every cycle is not reported');
});
