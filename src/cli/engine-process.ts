/**
 * Wiring of `--engine <dir>` into `larder serve`: where the supervised engine listens, and
 * starting it once Larder listens (the engine's SDK calls Larder from its first request on).
 * The supervisor lives in the single serving process, or in the cluster primary (one engine for
 * all workers; the workers learn its URL through LARDER_ENGINE_URL).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { ConfigError, type Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { EngineSupervisor, leancloudEnv } from '../cloud/engine-supervisor.ts';

/** Where a supervised engine listens. */
export interface EnginePlan {
  readonly dir: string;
  readonly port: number;
  readonly url: string;
}

async function freeLocalPort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => done(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * The engine to supervise, if LARDER_ENGINE_DIR is set: its port is LARDER_ENGINE_URL's when
 * that is given (the engine must listen where Larder calls it), else a free local port.
 */
export async function planEngine(config: Config): Promise<EnginePlan | undefined> {
  if (!config.engineDir) return undefined;
  const dir = resolve(config.engineDir);
  if (!existsSync(join(dir, 'package.json'))) throw new ConfigError(`LARDER_ENGINE_DIR: ${dir} has no package.json (the engine is started with 'npm start' there)`);
  if (config.engineUrl) {
    const url = new URL(config.engineUrl);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    return { dir, port, url: config.engineUrl };
  }
  const port = await freeLocalPort();
  return { dir, port, url: `http://127.0.0.1:${port}` };
}

/** Larder's address as the engine on this machine reaches it. */
export function localLarderUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** Starts the supervised engine with the app's keys. */
export function startEngine(
  config: Config,
  plan: EnginePlan,
  keys: { appId: string; appKey: string; masterKey: string; hookKey: string },
  logger: Logger,
  onReady: () => void,
): EngineSupervisor {
  const supervisor = new EngineSupervisor({
    dir: plan.dir,
    port: plan.port,
    env: leancloudEnv(keys, localLarderUrl(config), plan.port),
    logger,
    onReady,
  });
  supervisor.start();
  return supervisor;
}

/** Asks a worker (through the shared port) to read the engine's hook list again. */
export async function refreshThroughWorkers(config: Config, keys: { appId: string; masterKey: string }, logger: Logger): Promise<void> {
  try {
    const res = await fetch(`${localLarderUrl(config)}/1.1/larder/engine/refresh`, {
      method: 'POST',
      headers: { 'x-lc-id': keys.appId, 'x-lc-key': `${keys.masterKey},master`, 'content-type': 'application/json' },
      body: '{}',
    });
    if (!res.ok) logger.warn({ status: res.status, body: (await res.text()).slice(0, 300) }, 'engine: could not read its hook list');
    else await res.body?.cancel();
  } catch (err) {
    logger.warn({ reason: (err as Error).message }, 'engine: could not read its hook list');
  }
}
