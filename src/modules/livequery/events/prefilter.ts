/**
 * A cheap test run before the database evaluates a where (sql-match.ts): it answers false only
 * when the where certainly cannot match the object, so a write to a class with many
 * subscriptions (one per chat room, say) sends the database only the few wheres that may
 * match. It never decides a match: the database does. That it never rules out a match the
 * database would find is checked by property-based tests against SQL (prefilter.pg.test.ts).
 *
 * Only top-level equality with a string, number or boolean is understood; anything else
 * (arrays, which match by containment, dates, pointers, other operators) answers "may match".
 */
import type { Condition } from '../../../query/ast.ts';
import type { RowValues } from './object-state.ts';

function fieldValue(row: RowValues, name: string): unknown {
  return name === 'objectId' ? row.objectId : row.data[name];
}

/** False only when `cond` cannot match the row. */
export function mayMatch(cond: Condition, row: RowValues): boolean {
  switch (cond.kind) {
    case 'and':
      return cond.conditions.every((c) => mayMatch(c, row));
    case 'or':
      return cond.conditions.length > 0 && cond.conditions.some((c) => mayMatch(c, row));
    case 'compare': {
      if (cond.op !== 'eq' || cond.field.length !== 1) return true;
      const name = cond.field[0];
      if (name === 'createdAt' || name === 'updatedAt' || name === 'ACL') return true;
      const q = cond.value;
      if (q.type !== 'string' && q.type !== 'number' && q.type !== 'boolean') return true;
      const v = fieldValue(row, name);
      // A missing field or null never equals a scalar.
      if (v === undefined || v === null) return false;
      if (typeof v === typeof q.value) return v === q.value;
      return true;
    }
    default:
      return true;
  }
}
