/**
 * What `larder serve` prints once it listens: where SDKs connect, the app, where data lives, and
 * (once) newly generated keys: on a terminal, or in a private file when the output is a log.
 */
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { keyDisclosure, writeKeyFile, type AppKeys } from './key-disclosure.ts';
import { orphanEmbeddedAppWarning } from './orphan-embedded-app.ts';

function where(config: Config): string {
  if (config.databaseUrl) return `PostgreSQL ${config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')} (schema ${config.dbSchema})`;
  return `embedded PGlite in ${resolve(config.dataDir)}`;
}

/** This server's public base URL: LARDER_PUBLIC_URL, else the listening address. */
export function publicBaseUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return config.publicUrl ?? `http://${host}:${config.port}`;
}

/** The URL this machine reaches the listening socket at (a wildcard host becomes loopback). */
export function localUrl(host: string, address: AddressInfo | string | null): string {
  const port = typeof address === 'object' && address ? address.port : 0;
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** True when only this machine can reach `host` (a loopback address or name). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Where generated keys are written when no terminal may show them. */
export function keyFilePath(config: Config): string {
  return resolve(config.dataDir, 'larder-keys.env');
}

export function banner(config: Config, keys: AppKeys, generated: string[], print: (l: string) => void, workers: number, freshDatabase: boolean): void {
  print(`Larder is listening on ${publicBaseUrl(config)}  (serverURL for the SDKs)`);
  print(`  app id:   ${keys.appId}`);
  print(`  data:     ${where(config)}`);
  print(`  workers:  ${workers}`);
  for (const line of orphanEmbeddedAppWarning(config, freshDatabase)) print(line);
  if (isLoopbackHost(config.host)) {
    print(`  Only this machine can connect (host ${config.host}). To accept other machines, set LARDER_HOST=0.0.0.0`);
    print('  (or --host 0.0.0.0), best behind a TLS reverse proxy: see docs/deployment.md.');
  }
  if (!generated.length) return;
  const disclosure = keyDisclosure(process.stdout.isTTY === true, keyFilePath(config));
  if (disclosure.kind === 'terminal') {
    print('  New keys were generated and stored with the data. They are shown only this once:');
    // A first start generates them all; an older data directory gains only the hook key.
    if (generated.some((k) => k !== 'hookKey')) {
      print(`    app key:    ${keys.appKey}`);
      print(`    master key: ${keys.masterKey}`);
    }
    if (generated.includes('hookKey') && keys.hookKey) print(`    hook key:   ${keys.hookKey}  (LEANCLOUD_APP_HOOK_KEY of the engine)`);
    return;
  }
  // Not a terminal: this stream is the log. The keys go to a private file instead.
  writeKeyFile(disclosure.path, keys);
  print(`  New keys were generated and stored with the data. Standard output is not a terminal, so they`);
  print(`  are not shown here: they are in ${disclosure.path} (mode 0600). Keep them safe, then delete that file.`);
}
