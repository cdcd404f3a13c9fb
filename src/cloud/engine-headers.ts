import { createHash } from 'node:crypto';
import type { AppKeys } from '../auth/app-keys.ts';

/**
 * Headers of Larder's own calls to the engine (hooks, metadatas): the app id, a master-key
 * signature (the engine's SDK checks `md5(timestamp + masterKey)`, so the key itself never
 * travels), the hook key the engine requires for hooks, and the environment.
 */
export function engineHeaders(keys: AppKeys, production: boolean, contentLength?: number): Record<string, string> {
  const ts = Date.now();
  const sign = createHash('md5').update(`${ts}${keys.masterKey}`).digest('hex');
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
