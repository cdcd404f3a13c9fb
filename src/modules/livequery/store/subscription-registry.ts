/**
 * This process's copy of every subscription of the app, by class: the writer of an object
 * matches it against them without a read. Kept in step with the table by the notifications of
 * livequery-channel.ts (a subscribe or unsubscribe on any process), reloaded in full at start
 * and after the listener lost notifications.
 */
import { type Condition, parseWhere, parseKeys, type KeySelection } from '../../../module-api/reads.ts';
import { canonicalJson, refuseInnerQueries } from './subscription-query.ts';
import type { StoredSubscription } from './subscription-store.ts';
import { ClassSubscriptions } from './class-subscriptions.ts';
import type { RowValues } from '../events/object-state.ts';

/** A subscription ready to be matched. */
export interface LiveSubscription {
  readonly queryId: string;
  readonly subscriptionId: string;
  readonly className: string;
  /** Canonical text of the where: subscriptions with the same where are evaluated once. */
  readonly whereKey: string;
  readonly condition: Condition;
  readonly keys?: KeySelection;
  readonly returnACL: boolean;
  /** `keys` and `returnACL` as text: subscriptions with the same one see the same object ('' for most). */
  readonly viewKey: string;
  readonly sessionToken?: string;
}

/** Builds the matchable form of a stored subscription; undefined when its where no longer parses. */
export function toLive(s: StoredSubscription): LiveSubscription | undefined {
  try {
    const condition = parseWhere(s.query.where);
    refuseInnerQueries(condition);
    const keys = parseKeys(s.query.keys);
    return {
      queryId: s.queryId,
      subscriptionId: s.subscriptionId,
      className: s.query.className,
      whereKey: canonicalJson(s.query.where),
      condition,
      ...(keys ? { keys } : {}),
      returnACL: s.query.returnACL === true,
      viewKey: `${s.query.returnACL === true ? 'acl' : ''}${keys ? `\u0000${s.query.keys}` : ''}`,
      ...(s.sessionToken ? { sessionToken: s.sessionToken } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The subscriptions of one app in this process. */
export class SubscriptionRegistry {
  private readonly byId = new Map<string, LiveSubscription>();
  private readonly byClass = new Map<string, ClassSubscriptions>();
  private classesChanged: () => void = () => {};

  /** Calls `listener` whenever a class gets its first subscription or loses its last. */
  onClassesChanged(listener: () => void): void {
    this.classesChanged = listener;
  }

  /** Replaces everything (start, or after lost notifications). */
  replaceAll(list: readonly StoredSubscription[]): void {
    this.byId.clear();
    this.byClass.clear();
    for (const s of list) this.upsert(s);
    this.classesChanged();
  }

  /** Adds or refreshes one subscription. */
  upsert(s: StoredSubscription): void {
    const live = toLive(s);
    this.remove(s.queryId);
    if (!live) return;
    this.byId.set(live.queryId, live);
    let m = this.byClass.get(live.className);
    if (!m) {
      this.byClass.set(live.className, (m = new ClassSubscriptions()));
      this.classesChanged();
    }
    m.add(live);
  }

  /** Forgets one subscription. */
  remove(queryId: string): void {
    const old = this.byId.get(queryId);
    if (!old) return;
    this.byId.delete(queryId);
    const m = this.byClass.get(old.className);
    m?.remove(queryId);
    if (m?.size === 0) {
      this.byClass.delete(old.className);
      this.classesChanged();
    }
  }

  /** The subscriptions on a class (empty when none: the common case costs one map lookup). */
  ofClass(className: string): Iterable<LiveSubscription> {
    return this.byClass.get(className)?.values() ?? [];
  }

  /** The subscriptions on a class that may match one of the rows (class-subscriptions.ts). */
  candidates(className: string, rows: readonly RowValues[]): Iterable<LiveSubscription> {
    return this.byClass.get(className)?.candidates(rows) ?? [];
  }

  /** True when some subscription is on the class. */
  watches(className: string): boolean {
    return this.byClass.has(className);
  }

  /** Number of subscriptions. */
  get size(): number {
    return this.byId.size;
  }
}
