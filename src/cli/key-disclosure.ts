import { chmodSync, mkdirSync, openSync, writeSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';

/** The keys the banner may have to hand over. */
export interface AppKeys {
  appId: string;
  appKey: string;
  masterKey: string;
  /** The engine's LEANCLOUD_APP_HOOK_KEY (cloud code). */
  hookKey?: string;
}

/** Where newly generated keys go: to a person at a terminal, or into a private file. */
export type KeyDisclosure = { kind: 'terminal' } | { kind: 'file'; path: string };

/**
 * Decides where generated keys may be shown. Standard output is also the JSON log stream, which
 * is collected, shipped and kept (journald, docker logs, a log service): a master key printed there
 * is a master key leaked. Only a terminal that a person is looking at may see it; everywhere else
 * the keys go to a file only this account can read.
 */
export function keyDisclosure(stdoutIsTerminal: boolean, keyFile: string): KeyDisclosure {
  return stdoutIsTerminal ? { kind: 'terminal' } : { kind: 'file', path: keyFile };
}

/** The key file's text: shell `KEY=value` lines, so `set -a; . file` or an env file can use it. */
export function keyFileText(keys: AppKeys): string {
  return [
    '# Larder keys generated on the first start. Keep them somewhere safe, then delete this file.',
    `LARDER_APP_ID=${keys.appId}`,
    `LARDER_APP_KEY=${keys.appKey}`,
    `LARDER_MASTER_KEY=${keys.masterKey}`,
    ...(keys.hookKey ? [`LARDER_HOOK_KEY=${keys.hookKey}`] : []),
    '',
  ].join('\n');
}

/**
 * Writes a file only this account may read: mode 0600 (its directory 0700 when created). An
 * existing file is truncated and its mode tightened first.
 */
export function writePrivateFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'w', 0o600);
  try {
    // The mode of openSync applies only to a file it creates.
    chmodSync(path, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Writes the key file (0600); new keys replace old ones, which are gone anyway. */
export function writeKeyFile(path: string, keys: AppKeys): void {
  writePrivateFile(path, keyFileText(keys));
}
