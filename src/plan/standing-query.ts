/**
 * A standing query (a LiveQuery subscription) is checked once, as the find it stands for, by its
 * caller: the field policy first (102 for a hidden or client-invisible field, as a find would
 * answer), then the class's `find` permission (403). Its events are matched later by planMatch
 * under the subscriber's ACL. The module asks this instead of applying the guards itself.
 */
import type { Condition } from '../query/ast.ts';
import { checkConditionFields } from './field-policy.ts';
import type { Access } from './read-access.ts';

/** Throws unless the caller may find `className` with `condition`. */
export async function checkStandingQuery(access: Access, className: string, condition: Condition): Promise<void> {
  checkConditionFields(access, className, condition);
  await access.require(className, 'find');
}
