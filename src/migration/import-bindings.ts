/**
 * The platform bindings (`_larder_auth_bindings`) of an imported user's authData. Sign-up
 * validates authData strictly (src/users/auth-data.ts: an access_token is required, and so on);
 * exported rows hold whatever the platform stored back then (expired or missing tokens), so here
 * only the account id is needed: the binding is what makes a later authData login find the user.
 * Union entries are stored under `_<platform>_unionid: {uid}` and bind under that key.
 */
import { isPlainObject } from '../model/plain-object.ts';
import { ANONYMOUS, isPlatformName, MAX_UID_LENGTH } from '../users/auth-data.ts';
import type { Binding } from '../users/auth-bindings.ts';

/** `_<platform>_unionid`: the binding key of a union entry (src/users/auth-data.ts). */
const UNION_KEY = /^_([A-Za-z0-9_]+)_unionid$/;

function idOf(platform: string, entry: Record<string, unknown>): string | undefined {
  const v = platform === ANONYMOUS ? entry.id : entry.uid !== undefined ? entry.uid : entry.openid;
  return typeof v === 'string' && v !== '' && v.length <= MAX_UID_LENGTH ? v : undefined;
}

/** The bindings an authData document implies; entries without a usable id bind nothing. */
export function importBindings(authData: unknown): Binding[] {
  if (!isPlainObject(authData)) return [];
  const out: Binding[] = [];
  for (const [key, entry] of Object.entries(authData)) {
    if (!isPlainObject(entry)) continue;
    if (isPlatformName(UNION_KEY.exec(key)?.[1] ?? '')) {
      const uid = entry.uid;
      if (typeof uid === 'string' && uid !== '' && uid.length <= MAX_UID_LENGTH) out.push({ platform: key, uid });
      continue;
    }
    if (!isPlatformName(key)) continue;
    const uid = idOf(key, entry);
    if (uid !== undefined) out.push({ platform: key, uid });
  }
  return out;
}
