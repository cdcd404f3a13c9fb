// `npm run build`: compiles src/ to dist/ (tsconfig.build.json) and copies the files tsc does not
// emit but the code loads at run time next to itself (the PGlite worker, the realtime protocol
// definitions), then stamps the build so bin/larder.js knows dist/ is current.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

let copied = 0;
for (const name of readdirSync(src, { recursive: true })) {
  const rel = String(name);
  if (/\.(ts|tsx)$/.test(rel)) continue;
  const from = join(src, rel);
  const to = join(dist, relative(src, from));
  try {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    copied++;
  } catch (err) {
    // Folders are listed too; copyFileSync refuses them.
    if (err.code !== 'EISDIR' && err.code !== 'ENOTSUP' && err.code !== 'EPERM') throw err;
  }
}
writeFileSync(join(dist, '.build-stamp'), new Date().toISOString());
console.log(`dist/ built; ${copied} run-time files copied from src/`);
