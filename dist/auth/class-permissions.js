import { ApiError } from '../errors/api-error.js';
import { defaultRule, ruleAllows, ruleNeedsCaller } from '../schema/class-security.js';
/**
 * Checks a class-level permission (leancloud-behaviour §3.1) and throws HTTP 403, code 1,
 * `Forbidden to <op> by class permissions.` when it denies. The master key passes; an
 * everyone-rule passes without resolving the session.
 */
export async function checkClassPermission(ctx, className, op) {
    if (ctx.master)
        return;
    if (!(await classPermits(ctx, className, op)))
        throw new ApiError('forbidden', `Forbidden to ${op} by class permissions.`);
}
/** True when the caller may perform `op` on the class (no error; include uses it to skip). */
export async function classPermits(ctx, className, op) {
    if (ctx.master)
        return true;
    const sec = await ctx.app.classes.security(className);
    const rule = sec.permissions[op] ?? defaultRule(className, op);
    if (!ruleNeedsCaller(rule))
        return true;
    const who = await ctx.principal();
    return who.master || ruleAllows(rule, who);
}
/**
 * `add_fields`: a write that brings a top-level field the class does not have yet needs this
 * permission besides create/update. A field written before only as null is still new here.
 */
export async function checkAddFields(ctx, schema, ops) {
    if (ctx.master || !schema)
        return;
    const adds = ops.some((op) => op.kind !== 'delete' && !Object.hasOwn(schema.fields, op.path[0]));
    if (adds)
        await checkClassPermission(ctx, schema.name, 'add_fields');
}
/** Every class an inner query ($inQuery, $notInQuery, $select, $dontSelect) reads, nested ones too. */
export function innerQueryClasses(cond, out = new Set()) {
    switch (cond.kind) {
        case 'and':
        case 'or':
            for (const c of cond.conditions)
                innerQueryClasses(c, out);
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
/** Inner queries are finds on their classes: each needs the `find` permission there. */
export async function checkInnerQueries(ctx, cond) {
    if (ctx.master)
        return;
    for (const className of innerQueryClasses(cond))
        await checkClassPermission(ctx, className, 'find');
}
//# sourceMappingURL=class-permissions.js.map