/**
 * How a user's stored authData changes when platforms are linked or unlinked (pure). Linking
 * merges per platform: other platforms stay, a linked platform's entry is replaced (the real
 * server does this, leancloud-behaviour §4.3). A user who links a non-anonymous platform, or gets
 * a password, stops being anonymous: the `anonymous` entry and its binding go.
 */
import { isPlainObject } from '../model/plain-object.ts';
import { ANONYMOUS, unionKey, type AuthEntry } from './auth-data.ts';
import type { Binding } from './auth-bindings.ts';

/** One change of a user's authData. */
export interface AuthDataEdit {
  readonly link: readonly AuthEntry[];
  readonly unlink: readonly string[];
  /** Entries whose unionid the user claims (`_<platform>_unionid`). */
  readonly claim: readonly AuthEntry[];
  /** The user gets a password in this write. */
  readonly gainsPassword: boolean;
}

/** The new authData document, and the bindings to drop (by platform) and to add. */
export interface AuthDataResult {
  readonly doc: Record<string, unknown>;
  readonly unbind: string[];
  readonly bind: Binding[];
  /** The user was anonymous and no longer is. */
  readonly leftAnonymous: boolean;
}

/** Applies an edit to the stored authData (anything not an object counts as none). */
export function mergeAuthData(stored: unknown, edit: AuthDataEdit): AuthDataResult {
  const doc: Record<string, unknown> = {};
  if (isPlainObject(stored)) for (const [k, v] of Object.entries(stored)) doc[k] = v;
  const unbind = new Set<string>();
  const bind: Binding[] = [];
  for (const p of edit.unlink) {
    delete doc[p];
    unbind.add(p);
  }
  for (const e of edit.link) {
    doc[e.platform] = e.data;
    // The platform's old account (if another uid) is released before the new one is bound.
    unbind.add(e.platform);
    bind.push({ platform: e.platform, uid: e.uid });
  }
  for (const e of edit.claim) {
    if (!e.union) continue;
    const key = unionKey(e.union.platform);
    doc[key] = { uid: e.union.unionid };
    unbind.add(key);
    bind.push({ platform: key, uid: e.union.unionid });
  }
  const wasAnonymous = ANONYMOUS in doc;
  const linksOther = edit.link.some((e) => e.platform !== ANONYMOUS);
  let leftAnonymous = false;
  if (wasAnonymous && (linksOther || edit.gainsPassword) && !edit.link.some((e) => e.platform === ANONYMOUS)) {
    delete doc[ANONYMOUS];
    unbind.add(ANONYMOUS);
    leftAnonymous = true;
  }
  return { doc, unbind: [...unbind], bind, leftAnonymous };
}
