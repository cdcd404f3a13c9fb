/**
 * Runs dependency-cruiser with the project's rules (.dependency-cruiser.cjs) over a source tree,
 * and finds folder cycles on the graph it returns. Shared by the rule test and its fixture test.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ICruiseResult } from 'dependency-cruiser';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = `${ROOT}.dependency-cruiser.cjs`;
const CLI = `${ROOT}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`;

/**
 * The cruise of `dir` (relative to `baseDir`) with the project's rules. Run as the CLI in a child
 * process: its swc parser does not load under the test runner's TypeScript loader.
 */
export function cruiseTree(baseDir: string, dir = 'src'): ICruiseResult {
  const run = spawnSync(process.execPath, [CLI, '--config', CONFIG, '--output-type', 'json', '--no-progress', dir], { cwd: baseDir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.error) throw run.error;
  // Exit status = number of violations; the JSON is on stdout either way.
  if (!run.stdout.trim().startsWith('{')) throw new Error(`dependency-cruiser failed (${run.status}): ${run.stderr.slice(0, 2000)}`);
  return JSON.parse(run.stdout) as ICruiseResult;
}

/** The violations as `rule: from -> to` lines. */
export function violations(result: ICruiseResult): string[] {
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

/**
 * The folder of a source file for the cycle rule: the first folder under src/ (src/http/routes
 * counts as http), a module as modules/<name>. Files directly in src/ (app-context, config, log,
 * the composition root) and tests are left out: the root is the kernel every folder may use.
 */
function folderOf(path: string): string | undefined {
  const parts = path.replace(/^src\//, '').split('/');
  if (!path.startsWith('src/') || parts.length < 2 || path.endsWith('.test.ts')) return undefined;
  if (parts[0] === 'modules') return parts.length > 2 ? `modules/${parts[1]}` : undefined;
  return parts[0];
}

/** Edges `a -> b` between folders that lie on a cycle (both in one strongly connected component). */
export function folderCycleEdges(result: ICruiseResult): string[] {
  const adj = new Map<string, Set<string>>();
  for (const m of result.modules) {
    const a = folderOf(m.source);
    if (!a) continue;
    for (const d of m.dependencies) {
      const b = folderOf(d.resolved);
      if (!b || a === b) continue;
      if (!adj.has(a)) adj.set(a, new Set());
      adj.get(a)?.add(b);
      if (!adj.has(b)) adj.set(b, new Set());
    }
  }
  // Tarjan's strongly connected components.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const component = new Map<string, number>();
  let components = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.set(w, components);
      } while (w !== v);
      components++;
    }
  };
  for (const v of adj.keys()) if (!index.has(v)) visit(v);
  const edges: string[] = [];
  for (const [a, bs] of adj) for (const b of bs) if (component.get(a) === component.get(b)) edges.push(`${a} -> ${b}`);
  return edges.sort();
}
