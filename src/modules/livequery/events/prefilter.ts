/**
 * A cheap test run before the database evaluates a where (sql-match.ts): it answers false only
 * when the where certainly cannot match the object, so a write to a class with many
 * subscriptions (one per chat room, say) sends the database only the few wheres that may
 * match. That it never rules out a match the database would find is checked by property-based
 * tests against SQL (test/integration/livequery-matching.test.ts).
 *
 * Only top-level equality with a string, number or boolean is understood; anything else
 * (arrays, which match by containment, dates, pointers, other operators) answers "may match".
 * For wheres made of nothing else, `decideExactly` gives the answer itself, checked by the same
 * property test to be the database's.
 */
import type { Condition } from '../../../module-api/reads.ts';
import type { RowValues } from './object-state.ts';

/** The value of a top-level field of a row (objectId is a column). */
export function fieldValue(row: RowValues, name: string): unknown {
  return name === 'objectId' ? row.objectId : row.data[name];
}

/** A top-level equality with a scalar that the prefilter understands. */
export interface ScalarEquality {
  readonly field: string;
  readonly value: string | number | boolean;
}

function scalarEquality(cond: Condition): ScalarEquality | undefined {
  if (cond.kind !== 'compare' || cond.op !== 'eq' || cond.field.length !== 1) return undefined;
  const name = cond.field[0];
  if (name === 'createdAt' || name === 'updatedAt' || name === 'ACL') return undefined;
  const q = cond.value;
  if (q.type !== 'string' && q.type !== 'number' && q.type !== 'boolean') return undefined;
  return { field: name, value: q.value };
}

/**
 * One equality the whole where requires (the where itself, or a member of a top-level `and`):
 * `mayMatch` is false whenever this equality's own test is, so subscriptions can be indexed by
 * it (store/class-subscriptions.ts) and only the few whose value the object carries looked at.
 */
export function requiredEquality(cond: Condition): ScalarEquality | undefined {
  if (cond.kind === 'and') {
    for (const c of cond.conditions) {
      const e = scalarEquality(c);
      if (e) return e;
    }
    return undefined;
  }
  return scalarEquality(cond);
}

/** False only when `cond` cannot match the row. */
export function mayMatch(cond: Condition, row: RowValues): boolean {
  switch (cond.kind) {
    case 'and':
      return cond.conditions.every((c) => mayMatch(c, row));
    case 'or':
      return cond.conditions.length > 0 && cond.conditions.some((c) => mayMatch(c, row));
    case 'compare': {
      const e = scalarEquality(cond);
      return e ? mayEqual(fieldValue(row, e.field), e.value) : true;
    }
    default:
      return true;
  }
}

/**
 * The where's answer for the row when it is certain without the database, else undefined: for a
 * where made only of top-level scalar equalities (`{room: "lobby", open: true}`), a missing or
 * null field never matches and a value of the same type matches exactly when equal (jsonb
 * equality of strings, numbers and booleans is JavaScript's `===`; the class's type lock makes
 * the schema agree). Any other where, or a value of another type (an array matches by
 * containment), is left to the database. The property test of livequery-matching.test.ts checks
 * that every answer given here is the database's.
 */
export function decideExactly(cond: Condition, row: RowValues): boolean | undefined {
  const parts = cond.kind === 'and' ? cond.conditions : [cond];
  if (parts.length === 0) return undefined;
  let answer: boolean | undefined = true;
  for (const c of parts) {
    const e = scalarEquality(c);
    if (!e) return undefined;
    const v = fieldValue(row, e.field);
    if (v === undefined || v === null) return false;
    if (typeof v !== typeof e.value) answer = undefined;
    else if (v !== e.value) return false;
  }
  return answer;
}

/** The prefilter's test of one scalar equality against a field's value. */
export function mayEqual(v: unknown, q: string | number | boolean): boolean {
  // A missing field or null never equals a scalar.
  if (v === undefined || v === null) return false;
  // Same type: plain equality. Another type (an array matches by containment, and so on): maybe.
  if (typeof v === typeof q) return v === q;
  return true;
}
