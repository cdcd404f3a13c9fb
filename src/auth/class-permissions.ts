import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { defaultRule, ruleAllows, ruleNeedsCaller, type ClassOperation } from '../schema/class-security.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import type { WriteOp } from '../model/write-ops.ts';

/**
 * Checks a class-level permission (leancloud-behaviour §3.1) and throws HTTP 403, code 1,
 * `Forbidden to <op> by class permissions.` when it denies. The master key passes; an
 * everyone-rule passes without resolving the session.
 */
export async function checkClassPermission(ctx: RequestContext, className: string, op: ClassOperation): Promise<void> {
  if (ctx.master) return;
  if (!(await classPermits(ctx, className, op))) throw new ApiError('forbidden', `Forbidden to ${op} by class permissions.`);
}

/** True when the caller may perform `op` on the class (no error; include uses it to skip). */
export async function classPermits(ctx: RequestContext, className: string, op: ClassOperation): Promise<boolean> {
  if (ctx.master) return true;
  const sec = await ctx.app.classes.security(className);
  const rule = sec.permissions[op] ?? defaultRule(className, op);
  if (!ruleNeedsCaller(rule)) return true;
  const who = await ctx.principal();
  return who.master || ruleAllows(rule, who);
}

/**
 * `add_fields`: a write that brings a top-level field the class does not have yet needs this
 * permission besides create/update. A field written before only as null is still new here.
 */
export async function checkAddFields(ctx: RequestContext, schema: ClassSchema | undefined, ops: readonly WriteOp[]): Promise<void> {
  if (ctx.master || !schema) return;
  const adds = ops.some((op) => op.kind !== 'delete' && !Object.hasOwn(schema.fields, op.path[0]));
  if (adds) await checkClassPermission(ctx, schema.name, 'add_fields');
}
