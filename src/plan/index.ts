/**
 * The planner: the only way from a request to SQL over class tables. Use-cases, scan, user and
 * role writes and modules import from here; none of them builds an ACL clause or checks a field
 * policy itself (dependency-cruiser keeps it so: .dependency-cruiser.cjs).
 */
export { accessOf, type Access } from './read-access.ts';
export { droppedFrom, fieldView, type FieldView } from './field-policy.ts';
export { checkStandingQuery } from './standing-query.ts';
export { readsRow } from './acl.ts';
export { innerQueryClasses } from './inner-queries.ts';
export { planQuery, type QueryPlan, type QueryRequest } from './plan-query.ts';
export { reusableShape, type TableAccessPaths } from './reusable-shape.ts';
export { narrowRange } from './narrow-range.ts';
export { planWrite, writableRow, type WritePlan, type WriteRequest } from './plan-write.ts';
export { selectById, selectByIds, selectByIdsOf, selectJoinedByIdsOf } from './plan-rows.ts';
export { planMatch } from './plan-match.ts';
export { unpushedFields } from './push-view.ts';
