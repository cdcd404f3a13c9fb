import { readersOf } from '../app-context.js';
import { checkHiddenOrder } from '../auth/hidden-field-guard.js';
import { ApiError } from '../errors/api-error.js';
import { encodeRow } from '../objects/encode.js';
import { expandFiles } from '../objects/expand-files.js';
import { compileFilter } from '../objects/find-objects.js';
import { OBJECT_COLUMNS } from '../objects/object-row.js';
import { projectKeys } from '../objects/project-keys.js';
import { compileOrder } from '../query/sql/compile-order.js';
import { sql } from '../sql/fragment.js';
import { USER_TABLE } from './user-store.js';
/** Fields besides the hidden ones that a strict query neither matches, sorts on nor returns. */
export const STRICT_PRIVATE_FIELDS = ['email', 'mobilePhoneNumber'];
const refuse = (why) => new ApiError('invalidQuery', `strictlyQuery: ${why}`);
/** Throws 102 for inner queries and for conditions on the private fields; walks $and/$or. */
export function checkStrictCondition(cond) {
    switch (cond.kind) {
        case 'and':
        case 'or':
            for (const c of cond.conditions)
                checkStrictCondition(c);
            return;
        case 'inQuery':
        case 'select':
        case 'relatedTo':
            throw refuse('inner queries ($inQuery, $select, $relatedTo and their negations) are not supported.');
        default:
            if (STRICT_PRIVATE_FIELDS.includes(cond.field[0]))
                throw refuse(`cannot query on '${cond.field[0]}'.`);
    }
}
function checkStrictOrder(order) {
    checkHiddenOrder('_User', order);
    for (const part of (order ?? '').split(',')) {
        const field = part.trim().replace(/^-/, '').split('.')[0];
        if (STRICT_PRIVATE_FIELDS.includes(field))
            throw refuse(`cannot sort on '${field}'.`);
    }
}
function isEmptyWhere(where) {
    return where === undefined || where === null || (typeof where === 'object' && Object.keys(where).length === 0);
}
/** Runs a strict user query; see the file comment. */
export async function strictlyQueryUsers(ctx, q) {
    if (!ctx.master && !(await ctx.principal()).userId) {
        throw new ApiError('sessionRequired', 'strictlyQuery needs the session of a logged-in user (X-LC-Session) or the master key.');
    }
    if (!ctx.master && isEmptyWhere(q.where))
        throw refuse("a 'where' condition is required.");
    const schema = await ctx.app.classes.find('_User');
    if (!schema)
        return { results: [] };
    const readers = await readersOf(ctx);
    // compileFilter refuses the hidden fields for non-master callers (hidden-field-guard.ts).
    const { filter, cond } = compileFilter(schema, q.where, ctx, readers);
    if (!ctx.master) {
        checkStrictCondition(cond);
        checkStrictOrder(q.order);
    }
    const order = q.order ? compileOrder(q.order, schema) : sql `"createdAt", "objectId"`;
    const rows = await ctx.app.db.query(sql `SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE ${filter} ORDER BY ${order} LIMIT ${q.limit}`);
    const results = rows.map((r) => {
        const o = encodeRow(r, { className: '_User', withAcl: false });
        if (!ctx.master)
            for (const f of STRICT_PRIVATE_FIELDS)
                delete o[f];
        return o;
    });
    await expandFiles(ctx.app.db, results);
    return { results: q.keys ? results.map((o) => projectKeys(o, q.keys)) : results };
}
//# sourceMappingURL=strictly-query.js.map