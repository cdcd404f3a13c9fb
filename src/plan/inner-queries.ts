/**
 * Inner queries (`$inQuery`, `$notInQuery`, `$select`, `$dontSelect`) are finds on their own
 * classes: each needs the caller's `find` permission there, nested ones too. (Their rows are
 * filtered by the caller's ACL in the compiled SQL: query/sql/compile-subquery.ts.)
 */
import type { Condition } from '../query/ast.ts';
import type { Access } from './read-access.ts';

/** Every class an inner query reads, nested ones too. */
export function innerQueryClasses(cond: Condition, out = new Set<string>()): Set<string> {
  switch (cond.kind) {
    case 'and':
    case 'or':
      for (const c of cond.conditions) innerQueryClasses(c, out);
      break;
    case 'inQuery':
    case 'select':
      out.add(cond.query.className);
      innerQueryClasses(cond.query.where, out);
      break;
    default:
      break;
  }
  return out;
}

/** Throws 403 unless the caller may `find` on every class an inner query reads. */
export async function checkInnerQueries(access: Access, cond: Condition): Promise<void> {
  if (access.master) return;
  for (const className of innerQueryClasses(cond)) await access.require(className, 'find');
}
