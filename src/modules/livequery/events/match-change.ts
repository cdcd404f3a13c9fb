/**
 * From one committed write to the pushes it causes: the subscriptions on the object's class are
 * narrowed by the prefilter, their wheres evaluated on the database against the object before
 * and after the write, then each subscriber's read access is checked with its ACL principals
 * (user and roles) as they are now, and the event is named from the two answers.
 */
import { type AppContext, type Principal, resolvePrincipal } from '../../../module-api/context.ts';
import { defaultRule, ruleAllows, ruleNeedsCaller, type Condition } from '../../../module-api/reads.ts';
import type { LiveSubscription, SubscriptionRegistry } from '../store/subscription-registry.ts';
import { classify, type ChangeKind } from './classify.ts';
import { readableBy, rowOf, type RowValues } from './object-state.ts';
import { decideExactly, mayMatch } from './prefilter.ts';
import { PushTexts } from './push-payload.ts';
import { evaluateWheres, type WhereToEvaluate } from './sql-match.ts';

/** One committed write, as the write pipeline reports it (REST JSON objects). */
export interface ObjectChange {
  readonly className: string;
  readonly kind: ChangeKind;
  /** create/update/login: the object now. */
  readonly object?: Readonly<Record<string, unknown>>;
  /** update/delete: the object before the write. */
  readonly previous?: Readonly<Record<string, unknown>>;
  /** update: the top-level keys the write changed. */
  readonly updatedKeys?: readonly string[];
}

/** One push to send: to whom, and its JSON text. */
export interface Push {
  readonly subscriptionId: string;
  readonly payload: string;
}

function hasRelatedTo(c: Condition): boolean {
  if (c.kind === 'relatedTo') return true;
  if (c.kind === 'and' || c.kind === 'or') return c.conditions.some(hasRelatedTo);
  return false;
}

function principalOf(app: AppContext, sub: LiveSubscription): Promise<Principal> {
  // The master key gets no bypass: a subscription is always evaluated as its session's user.
  return resolvePrincipal(app, false, sub.sessionToken);
}

/** The pushes a write causes (empty, without any SQL, when nobody subscribed to its class). */
export async function matchChange(app: AppContext, registry: SubscriptionRegistry, change: ObjectChange): Promise<Push[]> {
  if (!registry.watches(change.className)) return [];
  const before = change.kind === 'update' || change.kind === 'delete' ? change.previous : undefined;
  const after = change.kind === 'delete' ? undefined : change.object;
  if (!before && !after) return [];
  const rows: RowValues[] = [];
  const beforeRow = before ? rowOf(before) : undefined;
  const afterRow = after ? rowOf(after) : undefined;
  if (beforeRow) rows.push(beforeRow);
  if (afterRow) rows.push(afterRow);

  // Narrow, then group the remaining subscriptions by where (each distinct where is evaluated once).
  const candidates: { sub: LiveSubscription; key: string }[] = [];
  const wheres = new Map<string, WhereToEvaluate>();
  const known = new Map<string, boolean[]>();
  const principals = new Map<LiveSubscription, Principal>();
  for (const sub of registry.candidates(change.className, rows)) {
    if (!rows.some((r) => mayMatch(sub.condition, r))) continue;
    let key = sub.whereKey;
    let readers: readonly string[] | null = null;
    if (hasRelatedTo(sub.condition)) {
      const who = await principalOf(app, sub);
      principals.set(sub, who);
      readers = who.readers;
      key = `${key}\u0000${readers.join('\u0000')}`;
    }
    candidates.push({ sub, key });
    if (known.has(key) || wheres.has(key)) continue;
    // Plain equalities are answered here exactly (the common chat-room case: no statement at all).
    const decided = rows.map((r) => decideExactly(sub.condition, r));
    if (decided.every((d) => d !== undefined)) known.set(key, decided as boolean[]);
    else wheres.set(key, { key, condition: sub.condition, readers });
  }
  if (candidates.length === 0) return [];
  const results = wheres.size > 0 ? await evaluateWheres(app, change.className, rows, [...wheres.values()]) : new Map<string, boolean[]>();
  for (const [key, m] of known) results.set(key, m);
  // The class's find permission as it is now (a CLP changed since subscribing counts at once):
  // while it denies a subscriber, its subscription stays but receives nothing.
  const sec = await app.classes.security(change.className);
  const findRule = sec.permissions.find ?? defaultRule(change.className, 'find');

  const pushes: Push[] = [];
  const texts = new PushTexts(app, before, after, change.updatedKeys);
  for (const { sub, key } of candidates) {
    const m = results.get(key);
    if (!m) continue;
    const whereBefore = beforeRow ? m[0] : false;
    const whereAfter = afterRow ? m[beforeRow ? 1 : 0] : false;
    if (!whereBefore && !whereAfter) continue;
    const who = principals.get(sub) ?? (await principalOf(app, sub));
    if (ruleNeedsCaller(findRule) && !ruleAllows(findRule, who)) continue;
    const readers = who.readers;
    const canBefore = beforeRow ? whereBefore && readableBy(beforeRow, readers) : false;
    const canReadAfter = afterRow ? readableBy(afterRow, readers) : false;
    const op = classify(change.kind, canBefore, whereAfter && canReadAfter);
    if (!op) continue;
    const which = op === 'delete' ? 'before' : op === 'leave' && !canReadAfter ? 'left' : 'after';
    pushes.push({ subscriptionId: sub.subscriptionId, payload: texts.text(sub, op, which) });
  }
  return pushes;
}
