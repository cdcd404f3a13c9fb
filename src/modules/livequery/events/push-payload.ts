/**
 * The JSON of one push (spec leancloud-services.md §4): `{op, object, query_id, updatedKeys?}`,
 * with the object as a query would have returned it to the subscriber: hidden fields removed
 * (a `_User`'s password hash, tokens, authData) and client-invisible ones (email, phone), the ACL only when the subscription asked for
 * it and the app returns ACLs in queries, the subscription's `keys` applied, and its className.
 */
import type { AppContext } from '../../../module-api/context.ts';
import { projectKeys, unpushedFields } from '../../../module-api/reads.ts';
import type { LiveSubscription } from '../store/subscription-registry.ts';
import { carriesUpdatedKeys, type LiveOp } from './classify.ts';

/** The object of a push, as the subscriber may see it. */
export function visibleObject(app: AppContext, sub: LiveSubscription, object: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...object };
  // Hidden and client-invisible fields, even of the subscriber's own user row (plan/push-view.ts).
  for (const f of unpushedFields(app, sub.className)) delete out[f];
  delete out.className;
  delete out.__type;
  if (!(sub.returnACL && app.settings.includeACLInQueries)) delete out.ACL;
  const projected = sub.keys ? projectKeys(out, sub.keys) : out;
  return { className: sub.className, ...projected };
}

/**
 * The object of a `leave` the subscriber may no longer read (its ACL changed): only what says
 * which object left, never its new content.
 */
export function leftObject(sub: LiveSubscription, object: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { className: sub.className, objectId: object.objectId };
  if (object.updatedAt !== undefined) out.updatedAt = object.updatedAt;
  return out;
}

/**
 * The changed keys a subscriber may know of: hidden and client-invisible fields are left out
 * as they are from the object (a token rotation or password reset is an `update` whose
 * `updatedKeys` is empty: the row changed, nothing the subscriber may read did).
 */
export function visibleUpdatedKeys(app: AppContext, sub: LiveSubscription, keys: readonly string[] | undefined): string[] {
  if (!keys) return [];
  const hidden = new Set(unpushedFields(app, sub.className));
  return keys.filter((k) => !hidden.has(k));
}

/** Which object a push carries: before the write (delete), after it, or only its identity (leave). */
export type PushedObject = 'before' | 'after' | 'left';

/**
 * The texts of the pushes of one write. The object a subscriber sees depends only on the
 * subscription's `keys` and `returnACL` (its class is the write's), so it is serialised once per
 * such variant, not once per subscriber: a chat message matched by 1,000 subscriptions is
 * turned into JSON once. Each push's text is then `{op, object, query_id, updatedKeys?}`.
 */
export class PushTexts {
  private readonly objects = new Map<string, string>();
  private updatedKeysText: string | undefined;

  constructor(
    private readonly app: AppContext,
    private readonly before: Readonly<Record<string, unknown>> | undefined,
    private readonly after: Readonly<Record<string, unknown>> | undefined,
    private readonly updatedKeys: readonly string[] | undefined,
  ) {}

  /** The JSON text of one push to `sub`. */
  text(sub: LiveSubscription, op: LiveOp, which: PushedObject): string {
    const variant = `${which}\u0000${sub.viewKey}`;
    let object = this.objects.get(variant);
    if (object === undefined) {
      const source = which === 'before' ? this.before : this.after;
      if (!source) throw new Error(`livequery: a ${op} push without the object ${which} the write`);
      object = JSON.stringify(which === 'left' ? leftObject(sub, source) : visibleObject(this.app, sub, source));
      this.objects.set(variant, object);
    }
    let out = `{"op":${JSON.stringify(op)},"object":${object},"query_id":${JSON.stringify(sub.queryId)}`;
    if (carriesUpdatedKeys(op)) out += `,"updatedKeys":${(this.updatedKeysText ??= JSON.stringify(visibleUpdatedKeys(this.app, sub, this.updatedKeys)))}`;
    return `${out}}`;
  }
}

/** The text of one push, built on its own (the reference PushTexts is tested against). */
export function pushPayload(sub: LiveSubscription, op: LiveOp, object: Record<string, unknown>, updatedKeys: readonly string[]): string {
  const body: Record<string, unknown> = { op, object, query_id: sub.queryId };
  if (carriesUpdatedKeys(op)) body.updatedKeys = [...updatedKeys];
  return JSON.stringify(body);
}
