/**
 * A real LeanEngine app (test/fixtures/engine-app, written with the npm package `leanengine`)
 * run as a child process next to an in-process Larder, configured only through the LEANCLOUD_*
 * environment, as LeanEngine itself would run it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe } from 'node:test';
import { CloudCode } from '../../../src/cloud/cloud-code.ts';
import { CLOUD_DEFAULTS, type CloudOptions } from '../../../src/cloud/cloud-options.ts';
import { createLogger } from '../../../src/log.ts';
import { engines, startHarness, TEST_KEYS, type Harness } from './engines.ts';
import { freePort, ROOT } from './larder-process.ts';

/** Directory of the test engine app. */
export const ENGINE_APP_DIR = `${ROOT}test/fixtures/engine-app`;

/** A running engine app. */
export interface EngineApp {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** The LEANCLOUD_* environment of an engine app serving `larderUrl`'s app. */
export function engineEnv(larderUrl: string, hookKey: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LARDER_') && !k.startsWith('LEANCLOUD_')) env[k] = v;
  return {
    ...env,
    LEANCLOUD_APP_ID: TEST_KEYS.appId,
    LEANCLOUD_APP_KEY: TEST_KEYS.appKey,
    LEANCLOUD_APP_MASTER_KEY: TEST_KEYS.masterKey,
    LEANCLOUD_APP_HOOK_KEY: hookKey,
    LEANCLOUD_API_SERVER: larderUrl,
    LEANCLOUD_APP_PORT: String(port),
  };
}

/** Starts the engine app on `port` and waits until it listens. */
export async function startEngineApp(larderUrl: string, hookKey: string, port: number, extraEnv: Record<string, string> = {}): Promise<EngineApp> {
  const child = spawn(process.execPath, ['server.js'], { cwd: ENGINE_APP_DIR, env: { ...engineEnv(larderUrl, hookKey, port), ...extraEnv }, stdio: 'pipe' });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`engine app did not start:\n${out}`)), 60_000);
    const check = () => {
      if (/engine listening on/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`engine app exited (${code}):\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Cloud options for tests: LeanCloud's defaults unless overridden, no periodic refresh. */
export function testCloudOptions(engineUrl: string, over: Partial<CloudOptions> = {}): CloudOptions {
  return { engineUrl, ...CLOUD_DEFAULTS, refreshSeconds: 0, bodyLimitBytes: 20 * 1024 * 1024, ...over };
}

/** A Larder harness whose app has an engine app next to it. */
export interface CloudHarness extends Harness {
  readonly engineApp: EngineApp;
  readonly larderUrl: string;
}

/**
 * Declares a suite once per database engine: Larder listening on 127.0.0.1 with cloud code
 * configured, and the test engine app started against it (its hook list read once it is up).
 */
export function forEachEngineWithCloud(name: string, body: (h: () => CloudHarness) => void, over: Partial<CloudOptions> = {}): void {
  for (const engine of engines()) {
    describe(`${name} [${engine}]`, () => {
      let harness: (CloudHarness & { stop(): Promise<void> }) | undefined;
      before(async () => {
        const port = await freePort();
        const cloud = new CloudCode(testCloudOptions(`http://127.0.0.1:${port}`, over), createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
        const h = await startHarness(engine, { cloud });
        const larderUrl = await h.listen();
        const engineApp = await startEngineApp(larderUrl, h.app.keys.hookKey, port);
        await cloud.refresh(h.app);
        harness = {
          ...h,
          engineApp,
          larderUrl,
          async stop() {
            await engineApp.stop();
            await h.stop();
          },
        };
      });
      after(async () => {
        await harness?.stop();
      });
      body(() => {
        if (!harness) throw new Error('harness not started');
        return harness;
      });
    });
  }
}
