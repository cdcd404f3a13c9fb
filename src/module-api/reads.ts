/**
 * Module surface: reads. Queries and reads by id go through the planner (src/plan/), which owns
 * field policy, inner-query permissions and the ACL of every table reference.
 */
export { findObjects, type FindQuery, type FindResult } from '../objects/find-objects.ts';
export { parseInclude } from '../objects/include.ts';
export { accessOf, droppedFrom, fieldView, selectByIds } from '../plan/index.ts';
