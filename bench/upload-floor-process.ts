/**
 * bench/upload-floor.mjs as a child process of its own (the least a plain Node server does for
 * an SDK upload's durable work; no database), for bench/files.ts and bench/files-ab.ts --floor.
 * BENCH_FLOOR_NODE_ARGS passes node flags to it (e.g. --trace-gc).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, REPO_ROOT, type ServerProcess } from './server-process.ts';

/** Starts the floor server, storing under `dir`; resolves once it listens. */
export async function startUploadFloor(dir: string): Promise<ServerProcess> {
  const port = await freePort();
  const nodeArgs = (process.env.BENCH_FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(REPO_ROOT, 'bench', 'upload-floor.mjs'), String(port), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the upload floor exited (${code})`)));
    child.stdout!.once('data', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`, pid: child.pid!, workerPids: () => [child.pid!], output: () => '',
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}
