/**
 * State shared by the parts of the where parser: counters for the whole where (so limits hold
 * across `$or` branches and inner queries) and the scope of the condition being parsed. The
 * recursive entry point is passed in as a function so the parser files do not import each other
 * in a cycle.
 */
import { ApiError } from '../errors/api-error.js';
import { MAX_CONDITIONS, MAX_SUBQUERIES, MAX_WHERE_DEPTH, tooComplex } from './limits.js';
/** A scope one level deeper; errors when MAX_WHERE_DEPTH is passed. */
export function deeper(scope, inCompound) {
    const depth = scope.depth + 1;
    if (depth > MAX_WHERE_DEPTH)
        tooComplex('levels of nested $or/$and groups and inner queries', MAX_WHERE_DEPTH);
    return { depth, inCompound };
}
/** Counts one leaf condition against MAX_CONDITIONS. */
export function countCondition(state) {
    state.conditions += 1;
    if (state.conditions > MAX_CONDITIONS)
        tooComplex('conditions', MAX_CONDITIONS);
}
/** Counts one inner query against MAX_SUBQUERIES. */
export function countSubquery(state) {
    state.subqueries += 1;
    if (state.subqueries > MAX_SUBQUERIES)
        tooComplex('inner queries ($inQuery, $select, ...)', MAX_SUBQUERIES);
}
/** Error 102 with a message. */
export function invalidQuery(message) {
    throw new ApiError('invalidQuery', message);
}
//# sourceMappingURL=parse-context.js.map