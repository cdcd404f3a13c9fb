/**
 * LeanEngine's class hooks (beforeSave, afterSave, beforeUpdate, afterUpdate, beforeDelete,
 * afterDelete) and onLogin, attached once to the write pipeline (docs/architecture.md), so every
 * write path runs them: REST, batch, batch/save, conditional writes, users, roles. Per
 * spec/leancloud-services.md §2: the body is `{object, user}` (`_updatedKeys` on updates), sent
 * with X-LC-Hook-Key; beforeSave's answer is what gets stored, beforeUpdate's changes are stored
 * too (recorded behaviour), before-hook errors refuse the write with 142; after-hooks run after
 * the commit and their failures are logged and counted. Only classes and operations the
 * engine's hook list names are touched: other writes cost nothing.
 */
import type { AppContext, RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import type { BeforeResult, BeforeWrite, RestObject, WriteEvent, WriteExtension, WriteKind, WriteSource } from '../writes/write-extension-api.ts';
import type { CloudCode } from './cloud-code.ts';
import { currentUserJson } from './current-user.ts';
import { ignoredHooks, type ClassHook } from './ignore-hooks.ts';
import { USER_HOOKS } from './user-hooks.ts';

/** Hook names per operation: the engine's metadata prefix and the URL segment. */
const HOOKS: Record<'create' | 'update' | 'delete', { before: ClassHook; after: ClassHook; prefix: string }> = {
  create: { before: 'beforeSave', after: 'afterSave', prefix: 'save' },
  update: { before: 'beforeUpdate', after: 'afterUpdate', prefix: 'update' },
  delete: { before: 'beforeDelete', after: 'afterDelete', prefix: 'delete' },
};

/** Classes LeanCloud never runs hooks for. */
const NO_HOOKS = new Set(['_Installation']);
/** Server keys a hook's answer cannot set (the pipeline drops them too). */
const SERVER_KEYS = new Set(['objectId', 'createdAt', 'updatedAt', 'className', '__type', '_updatedKeys']);
/** Fields never sent to the engine (a sign-up's password); they are carried over to the answer. */
const SECRET_FIELDS = ['password'];

function metadataName(kind: 'before' | 'after', op: 'create' | 'update' | 'delete', className: string): string {
  return `__${kind}_${HOOKS[op].prefix}_for_${className}`;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function withoutSecrets(object: RestObject): RestObject {
  // Most objects carry none: sent as they are (the body is only serialised, never changed).
  if (!SECRET_FIELDS.some((k) => k in object)) return object;
  const out: RestObject = {};
  for (const [k, v] of Object.entries(object)) if (!SECRET_FIELDS.includes(k)) out[k] = v;
  return out;
}

/**
 * The body an update is replaced with: the keys the client sent (with the hook's value when the
 * hook changed it, else exactly as sent, `__op` included), plus every key the hook set to
 * something other than what is stored. Undefined when the hook changed nothing.
 */
export function updateReplacement(sent: RestObject, stored: RestObject | undefined, answer: RestObject): RestObject | undefined {
  const out: RestObject = { ...sent };
  let changed = false;
  for (const [k, v] of Object.entries(answer)) {
    if (SERVER_KEYS.has(k) || k.startsWith('__')) continue;
    if (k in sent) {
      if (!same(v, sent[k]) && !(isPlainObject(sent[k]) && '__op' in sent[k])) {
        out[k] = v;
        changed = true;
      }
    } else if (!stored || !same(v, stored[k])) {
      out[k] = v;
      changed = true;
    }
  }
  return changed ? out : undefined;
}

/** The class-hook extension of one app's cloud code. */
export function classHooks(app: AppContext, cloud: CloudCode): WriteExtension {
  const skipped = (ctx: RequestContext, flags: BeforeWrite['flags'], className: string) =>
    // Most writes carry no flag: nothing to verify (ignoredHooks would answer an empty set).
    flags.__ignore_hooks === undefined && flags.__before === undefined && flags.__after === undefined
      ? undefined
      : ignoredHooks(flags, className, {
          master: ctx.master,
          hookKey: ctx.hookKey,
          appHookKey: app.keys.hookKey,
          masterKey: app.keys.masterKey,
          windowMs: app.masterSignWindowMs,
          nowMs: Date.now(),
        });

  const before = async (w: BeforeWrite): Promise<BeforeResult> => {
    if (w.op === 'login') {
      if (!cloud.hooks.has(USER_HOOKS.onLogin)) return;
      await cloud.callHook(app, '/1.1/functions/_User/onLogin', { object: w.object }, { timeoutMs: cloud.options.beforeHookTimeoutMs, production: w.ctx.production });
      return;
    }
    const hook = HOOKS[w.op];
    if (!cloud.hooks.has(metadataName('before', w.op, w.className)) || skipped(w.ctx, w.flags, w.className)?.has(hook.before)) return;
    const object: RestObject =
      w.op === 'create'
        ? withoutSecrets(w.object)
        : w.op === 'update'
          ? { ...withoutSecrets(w.stored ?? {}), ...withoutSecrets(w.object), objectId: w.objectId, _updatedKeys: w.updatedKeys ?? Object.keys(w.object) }
          : withoutSecrets(w.object);
    // Without a session token there is no user to read (and no promise to wait for).
    const user = w.ctx.sessionToken ? await currentUserJson(w.ctx) : undefined;
    const out = await cloud.callHook(app, `/1.1/functions/${encodeURIComponent(w.className)}/${hook.before}`, user ? { object, user } : { object }, {
      timeoutMs: cloud.options.beforeHookTimeoutMs,
      production: w.ctx.production,
    });
    if (out.kind === 'missing' || w.op === 'delete') return;
    if (!isPlainObject(out.value)) throw new ApiError('engineBadAnswer', `${hook.before} of ${w.className} must answer with the object.`);
    const answer: RestObject = out.value;
    for (const k of SECRET_FIELDS) if (k in w.object) answer[k] = w.object[k];
    if (w.op === 'create') return { replace: answer };
    const replacement = updateReplacement(w.object, w.stored, answer);
    return replacement ? { replace: replacement } : undefined;
  };

  const after = (e: WriteEvent): void => {
    if (e.op === 'login') return;
    const hook = HOOKS[e.op];
    if (!cloud.hooks.has(metadataName('after', e.op, e.className)) || skipped(e.ctx, e.flags, e.className)?.has(hook.after)) return;
    const base = e.op === 'delete' ? e.previous : e.object;
    if (!base) return;
    // A copy: the call is sent later, and the event's object is shared with other extensions.
    const object: RestObject = e.op === 'update' ? { ...withoutSecrets(base), _updatedKeys: e.updatedKeys ?? [] } : { ...withoutSecrets(base) };
    const run = async () => {
      const user = await currentUserJson(e.ctx);
      await cloud.callHook(app, `/1.1/functions/${encodeURIComponent(e.className)}/${hook.after}`, user ? { object, user } : { object }, {
        timeoutMs: cloud.options.hookTimeoutMs,
        production: e.ctx.production,
      });
    };
    run().catch((err: unknown) => {
      cloud.counters.afterHookFailures++;
      cloud.logger.warn({ hook: hook.after, className: e.className, objectId: e.objectId, reason: (err as Error).message }, 'cloud code: after-hook failed');
    });
  };

  return {
    name: 'cloud-code',
    interest(className: string, op: WriteKind, source: WriteSource) {
      if (source === 'import' || source === 'sync' || source === 'internal' || NO_HOOKS.has(className)) return undefined;
      if (op === 'login') return className === '_User' && cloud.hooks.has(USER_HOOKS.onLogin) ? { before: true } : undefined;
      const wantsBefore = cloud.hooks.has(metadataName('before', op, className));
      const wantsAfter = cloud.hooks.has(metadataName('after', op, className));
      if (!wantsBefore && !wantsAfter) return undefined;
      return { before: wantsBefore, after: wantsAfter, previous: op === 'update' && wantsBefore };
    },
    before,
    after,
  };
}
