import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { fieldOf } from '../model/class-schema.ts';
import { findObjects, type FindQuery, type FindResult } from './find-objects.ts';

/**
 * `redirectClassNameForKey=<key>`: the SDK queries a relation by the owner's class, not knowing
 * the target class; the query runs on the class the relation field points to, and the response
 * names it in `className` (the SDK reads it to build objects).
 */
export async function findRedirected(ctx: RequestContext, ownerClass: string, key: string, q: FindQuery): Promise<FindResult> {
  const owner = await ctx.app.classes.find(ownerClass);
  const field = fieldOf(owner, key);
  if (!field) return { ...(await findObjects(ctx, ownerClass, q)), className: ownerClass };
  if (field.type !== 'Relation' || !field.className) throw new ApiError('invalidQuery', `Field '${key}' is not a relation.`);
  const res = await findObjects(ctx, field.className, q);
  return { ...res, className: field.className };
}
