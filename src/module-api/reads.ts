/**
 * Module surface: reads. Queries and reads by id go through the planner (src/plan/), which owns
 * field policy, inner-query permissions and the ACL of every table reference.
 */
export { findObjects, type FindQuery, type FindResult } from '../objects/find-objects.ts';
export { parseInclude, resolveIncludes } from '../objects/include.ts';
export { getObject } from '../objects/get-object.ts';
export { expandFiles } from '../objects/expand-files.ts';
export { parseKeys, projectKeys, type KeySelection } from '../objects/project-keys.ts';
export { accessOf, checkStandingQuery, readsRow, droppedFrom, fieldView, innerQueryClasses, planMatch, planQuery, selectByIds, unpushedFields } from '../plan/index.ts';
export { checkClassPermission } from '../auth/class-permissions.ts';
export { defaultRule, ruleAllows, ruleNeedsCaller } from '../schema/class-security.ts';
export type { Condition, JsonObject, JsonValue } from '../query/ast.ts';
export { parseWhere } from '../query/parse-where.ts';
export { parseLimit, parseSkip } from '../query/limits.ts';
