#!/usr/bin/env node
// Runs Larder: the compiled JavaScript in dist/ when it was built (`npm run build`) and is not
// older than the sources, else the TypeScript sources through tsx's loader, in this same process
// (signals reach it). tsx costs each process about 35 MB, so production should build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');

/** The newest modification time under dir (0 when it does not exist). */
function newest(dir) {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

let built = existsSync(stamp) && existsSync(join(root, 'dist', 'main.js'));
if (built && process.env.LARDER_RUN_SOURCES === '1') built = false;
if (built && newest(join(root, 'src')) > statSync(stamp).mtimeMs) {
  process.stderr.write('larder: dist/ is older than src/; running the TypeScript sources (run `npm run build` to use the compiled code)\n');
  built = false;
}
if (built) {
  await import('../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
