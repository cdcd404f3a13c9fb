/**
 * The subscriptions on one class, indexed by the equality their where requires (`{room:
 * "lobby"}`, events/prefilter.ts `requiredEquality`). A chat app has one subscription per room:
 * with 10,000 of them, a write must not walk all 10,000 to find the ten of its room. The index
 * answers a superset of the subscriptions the prefilter keeps (same rule, `mayEqual`), so the
 * database still decides every match; only subscriptions certain not to match are skipped.
 */
import { fieldValue, requiredEquality } from '../events/prefilter.ts';
import type { RowValues } from '../events/object-state.ts';
import type { LiveSubscription } from './subscription-registry.ts';

type Scalar = string | number | boolean;
type ScalarType = 'string' | 'number' | 'boolean';
/** Per value type, per value: the subscriptions requiring it. */
type FieldIndex = Map<ScalarType, Map<Scalar, Map<string, LiveSubscription>>>;

function isScalarType(t: string): t is ScalarType {
  return t === 'string' || t === 'number' || t === 'boolean';
}

function addAll(out: Set<LiveSubscription>, m: ReadonlyMap<string, LiveSubscription> | undefined): void {
  if (m) for (const s of m.values()) out.add(s);
}

/** The subscriptions of one class. */
export class ClassSubscriptions {
  private readonly all = new Map<string, LiveSubscription>();
  /** Subscriptions without a required equality: looked at for every write. */
  private readonly unindexed = new Map<string, LiveSubscription>();
  private readonly fields = new Map<string, FieldIndex>();

  /** Adds a subscription (its queryId must not be present). */
  add(sub: LiveSubscription): void {
    this.all.set(sub.queryId, sub);
    const eq = requiredEquality(sub.condition);
    if (!eq) {
      this.unindexed.set(sub.queryId, sub);
      return;
    }
    let f = this.fields.get(eq.field);
    if (!f) this.fields.set(eq.field, (f = new Map()));
    const type = typeof eq.value as ScalarType;
    let byValue = f.get(type);
    if (!byValue) f.set(type, (byValue = new Map()));
    let subs = byValue.get(eq.value);
    if (!subs) byValue.set(eq.value, (subs = new Map()));
    subs.set(sub.queryId, sub);
  }

  /** Removes a subscription; true when it was there. */
  remove(queryId: string): boolean {
    const sub = this.all.get(queryId);
    if (!sub) return false;
    this.all.delete(queryId);
    if (this.unindexed.delete(queryId)) return true;
    const eq = requiredEquality(sub.condition);
    if (!eq) return true;
    const f = this.fields.get(eq.field);
    const byValue = f?.get(typeof eq.value as ScalarType);
    const subs = byValue?.get(eq.value);
    subs?.delete(queryId);
    if (subs?.size === 0) byValue!.delete(eq.value);
    if (byValue?.size === 0) f!.delete(typeof eq.value as ScalarType);
    if (f?.size === 0) this.fields.delete(eq.field);
    return true;
  }

  /** Number of subscriptions. */
  get size(): number {
    return this.all.size;
  }

  /** Every subscription. */
  values(): Iterable<LiveSubscription> {
    return this.all.values();
  }

  /**
   * The subscriptions that may match one of the rows: the unindexed ones, and for each indexed
   * field those whose value a row carries (a value of another type, an array for instance, may
   * match any of them; a missing field or null none).
   */
  candidates(rows: readonly RowValues[]): Set<LiveSubscription> {
    const out = new Set<LiveSubscription>(this.unindexed.values());
    for (const [field, index] of this.fields) {
      for (const row of rows) {
        const v = fieldValue(row, field);
        if (v === undefined || v === null) continue;
        const t = typeof v;
        for (const [type, byValue] of index) {
          if (type === t && isScalarType(t)) addAll(out, byValue.get(v as Scalar));
          else for (const subs of byValue.values()) addAll(out, subs);
        }
      }
    }
    return out;
  }
}
