import { ApiError } from '../errors/api-error.js';
import { hiddenFields } from '../schema/hidden-fields.js';
function refuse(className, field) {
    return new ApiError('invalidQuery', `Cannot query or sort on '${field}' of ${className}: the field is hidden.`);
}
function checkPath(className, path) {
    if (hiddenFields(className).includes(path[0]))
        throw refuse(className, path[0]);
}
/** Fields named by an `order` parameter ("a,-b.c"): the top-level field of each. */
export function checkHiddenOrder(className, order) {
    if (!order)
        return;
    for (const part of order.split(',')) {
        const field = part.trim().replace(/^-/, '').split('.')[0];
        if (field && hiddenFields(className).includes(field))
            throw refuse(className, field);
    }
}
/**
 * Hidden fields (password, salt, sessionToken... of `_User`) are never sent to clients, and
 * must not be reachable by querying either: a `$regex` on `sessionToken`, an `order` on it, or
 * a `$select` of it from an inner query would reveal tokens one character at a time. Walks
 * the whole condition, inner queries (with their own class) included; the master key is not
 * checked (the caller skips this for it). Error 102.
 */
export function checkHiddenFields(className, cond) {
    switch (cond.kind) {
        case 'and':
        case 'or':
            for (const c of cond.conditions)
                checkHiddenFields(className, c);
            return;
        case 'relatedTo':
            return;
        case 'inQuery':
            checkPath(className, cond.field);
            checkHiddenFields(cond.query.className, cond.query.where);
            checkHiddenOrder(cond.query.className, cond.query.order);
            return;
        case 'select':
            checkPath(className, cond.field);
            checkPath(cond.query.className, cond.key);
            checkHiddenFields(cond.query.className, cond.query.where);
            checkHiddenOrder(cond.query.className, cond.query.order);
            return;
        default:
            checkPath(className, cond.field);
    }
}
//# sourceMappingURL=hidden-field-guard.js.map