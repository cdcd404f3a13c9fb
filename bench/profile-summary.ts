import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Self time per function, summed over the profiles in `dir`, as shares of the busy samples. */
export function topFunctions(dir: string, n: number): string[] {
  const self = new Map<string, number>();
  let busy = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile'))) {
    const prof = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { nodes: ProfileNode[] };
    for (const node of prof.nodes) {
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === '(idle)') continue;
      const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '~/').replace(/^file:\/\/.*\/src\//, 'src/')}:${lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + (node.hitCount ?? 0));
      busy += node.hitCount ?? 0;
    }
  }
  return [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
}
