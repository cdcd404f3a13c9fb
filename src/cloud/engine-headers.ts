import { createHash } from 'node:crypto';
import type { AppKeys } from '../auth/app-keys.ts';

/** The last signature made: hook calls come many per millisecond under load, each signed alike. */
let last: { ts: number; masterKey: string; sign: string } | undefined;

/** `md5(timestamp + masterKey)` in hex, made once per millisecond and key. */
function signature(ts: number, masterKey: string): string {
  if (last && last.ts === ts && last.masterKey === masterKey) return last.sign;
  const sign = createHash('md5').update(`${ts}${masterKey}`).digest('hex');
  last = { ts, masterKey, sign };
  return sign;
}

/**
 * Headers of Larder's own calls to the engine (hooks, metadatas): the app id, a master-key
 * signature (the engine's SDK checks `md5(timestamp + masterKey)`, so the key itself never
 * travels), the hook key the engine requires for hooks, and the environment.
 */
export function engineHeaders(keys: AppKeys, production: boolean, contentLength?: number): Record<string, string> {
  const ts = Date.now();
  const sign = signature(ts, keys.masterKey);
  const headers: Record<string, string> = {
    'x-lc-id': keys.appId,
    'x-lc-sign': `${sign},${ts},master`,
    'x-lc-hook-key': keys.hookKey,
    'x-lc-prod': production ? '1' : '0',
    'user-agent': 'Larder',
  };
  if (contentLength !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = String(contentLength);
  }
  return headers;
}
