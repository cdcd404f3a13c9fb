import { randomBytes } from 'node:crypto';
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';

/** The app's identity and secrets. */
export interface AppKeys {
  appId: string;
  appKey: string;
  masterKey: string;
  /** Sent to the LeanEngine app with every hook call (X-LC-Hook-Key); lets its SDK skip hooks. */
  hookKey: string;
  /** Server-side secret for HMACs (scan cursors and the like); never leaves the server. */
  serverSecret: string;
}

const ALPHANUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random string over [A-Za-z0-9] from a CSPRNG (no modulo bias: 62*4=248 < 256). */
export function randomToken(length: number, alphabet = ALPHANUM): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < alphabet.length * Math.floor(256 / alphabet.length)) out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Keys given by the operator; any missing one is generated once and kept with the data. */
export interface GivenKeys {
  appId?: string;
  appKey?: string;
  masterKey?: string;
  hookKey?: string;
}

/**
 * Loads the stored keys, generating missing ones on first start. Keys given in the config win
 * and are stored, so the data always knows which app it belongs to. Returns whether anything
 * was generated (start-up prints generated keys once).
 */
export async function loadAppKeys(db: Queryable, given: GivenKeys): Promise<{ keys: AppKeys; generated: (keyof GivenKeys)[] }> {
  const rows = await db.query<{ value: Partial<AppKeys> }>(sql`SELECT value FROM _larder_meta WHERE key = 'app'`);
  const stored = rows[0]?.value ?? {};
  const generated: (keyof GivenKeys)[] = [];
  const pick = (k: keyof GivenKeys, make: () => string): string => {
    const v = given[k] ?? stored[k];
    if (v) return v;
    generated.push(k);
    return make();
  };
  const keys: AppKeys = {
    appId: pick('appId', () => `${randomToken(24)}-larder`),
    appKey: pick('appKey', () => randomToken(24)),
    masterKey: pick('masterKey', () => randomToken(24)),
    hookKey: pick('hookKey', () => randomToken(24)),
    serverSecret: stored.serverSecret ?? randomBytes(32).toString('hex'),
  };
  const changed = (['appId', 'appKey', 'masterKey', 'hookKey', 'serverSecret'] as const).some((k) => stored[k] !== keys[k]);
  if (changed) {
    await db.query(sql`INSERT INTO _larder_meta (key, value) VALUES ('app', ${JSON.stringify(keys)}::jsonb)
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`);
  }
  return { keys, generated };
}
