import { ApiError } from '../errors/api-error.js';
import { fieldOf } from '../schema/types.js';
import { findObjects } from './find-objects.js';
/**
 * `redirectClassNameForKey=<key>`: the SDK queries a relation by the owner's class, not knowing
 * the target class; the query runs on the class the relation field points to, and the response
 * names it in `className` (the SDK reads it to build objects).
 */
export async function findRedirected(ctx, ownerClass, key, q) {
    const owner = await ctx.app.classes.find(ownerClass);
    const field = fieldOf(owner, key);
    if (!field)
        return { ...(await findObjects(ctx, ownerClass, q)), className: ownerClass };
    if (field.type !== 'Relation' || !field.className)
        throw new ApiError('invalidQuery', `Field '${key}' is not a relation.`);
    const res = await findObjects(ctx, field.className, q);
    return { ...res, className: field.className };
}
//# sourceMappingURL=redirect-class.js.map