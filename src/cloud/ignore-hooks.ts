/**
 * Which class hooks a write asks to skip. SDKs holding the hook key or the master key send
 * `"__ignore_hooks": ["beforeSave", ...]` in the body (leancloud-storage `ignoreHook`); it is
 * honoured only when the request really carries a valid master key or hook key, otherwise any
 * client could bypass an app's validation. The 2016 form `__before` / `__after` is
 * `"<ts>,<hex HMAC-SHA1(masterKey, '__before_for_<Class>:<ts>')>"`: the signature proves the
 * master key, and the timestamp must be recent (the master-signature window) so that a value
 * seen once cannot be replayed forever. The flags themselves are never stored (objects/parse-write).
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../auth/constant-time.ts';

/** The class hooks of LeanEngine. */
export type ClassHook = 'beforeSave' | 'afterSave' | 'beforeUpdate' | 'afterUpdate' | 'beforeDelete' | 'afterDelete';

const CLASS_HOOKS: readonly ClassHook[] = ['beforeSave', 'afterSave', 'beforeUpdate', 'afterUpdate', 'beforeDelete', 'afterDelete'];
const BEFORE: readonly ClassHook[] = ['beforeSave', 'beforeUpdate', 'beforeDelete'];
const AFTER: readonly ClassHook[] = ['afterSave', 'afterUpdate', 'afterDelete'];

/** What deciding needs: the request's keys and the app's secrets. */
export interface IgnoreContext {
  readonly master: boolean;
  /** X-LC-Hook-Key as sent. */
  readonly hookKey?: string;
  readonly appHookKey: string;
  readonly masterKey: string;
  /** Accepted age of a legacy signature, ms. */
  readonly windowMs: number;
  readonly nowMs: number;
}

/** The request flags that name hooks to skip. */
export interface HookFlags {
  readonly __ignore_hooks?: unknown;
  readonly __before?: unknown;
  readonly __after?: unknown;
}

/** The legacy signature of `__before_for_<Class>` / `__after_for_<Class>` at `ts`. */
export function signHookSkip(masterKey: string, hookName: string, ts: number): string {
  return `${ts},${createHmac('sha1', masterKey).update(`${hookName}:${ts}`).digest('hex')}`;
}

function validLegacy(value: unknown, hookName: string, c: IgnoreContext): boolean {
  if (typeof value !== 'string' || value.length > 200) return false;
  const [tsText, sign] = value.split(',');
  if (!/^\d{1,15}$/.test(tsText ?? '') || !sign) return false;
  const ts = Number(tsText);
  if (Math.abs(c.nowMs - ts) > c.windowMs) return false;
  return safeEqual(sign.toLowerCase(), signHookSkip(c.masterKey, hookName, ts).split(',')[1]);
}

/** The hooks this write may skip (empty for most writes). */
export function ignoredHooks(flags: HookFlags, className: string, c: IgnoreContext): ReadonlySet<ClassHook> {
  const out = new Set<ClassHook>();
  const list = flags.__ignore_hooks;
  if (Array.isArray(list) && list.length > 0) {
    const trusted = c.master || (c.hookKey !== undefined && safeEqual(c.hookKey, c.appHookKey));
    if (trusted) for (const name of list) if ((CLASS_HOOKS as readonly unknown[]).includes(name)) out.add(name as ClassHook);
  }
  if (flags.__before !== undefined && validLegacy(flags.__before, `__before_for_${className}`, c)) for (const h of BEFORE) out.add(h);
  if (flags.__after !== undefined && validLegacy(flags.__after, `__after_for_${className}`, c)) for (const h of AFTER) out.add(h);
  return out;
}
