/**
 * Who reads, as every table reference of one request needs it: the ACL principals, the user, the
 * class permissions and the app's client-invisible fields. Resolved once per request by
 * `accessOf` and handed to the planner, include and module list pages alike.
 */
import type { RequestContext } from '../app-context.ts';
import { checkClassPermission, classPermits } from '../auth/class-permissions.ts';
import type { InvisibleFields } from '../model/invisible-fields.ts';
import type { ClassOperation } from '../schema/class-security.ts';
import type { ClassSchema } from '../model/class-schema.ts';

/** The caller's read (and write) rights over class tables. */
export interface Access {
  /** Master key: no ACL filter, no field policy, every class permission. */
  readonly master: boolean;
  /** ACL principals ('*', userId, 'role:<name>'...); null for the master key. */
  readonly readers: readonly string[] | null;
  /** The caller's user objectId, when a valid session was given. */
  readonly userId?: string;
  /** The app's client-invisible fields (settings), as of this request. */
  readonly invisible: InvisibleFields;
  /** Whether the caller may perform `op` on a class (include skips classes it may not get). */
  permits(className: string, op: ClassOperation): Promise<boolean>;
  /** Throws 403 when the caller may not perform `op` on a class. */
  require(className: string, op: ClassOperation): Promise<void>;
  /** The cached schema of another class (inner queries), undefined when unknown. */
  schemaOf(className: string): ClassSchema | undefined;
}

/** The access of a request's caller (resolves its principal once; cached by the context). */
export async function accessOf(ctx: RequestContext): Promise<Access> {
  const p = await ctx.principal();
  return {
    master: p.master,
    readers: p.master ? null : p.readers,
    userId: p.userId,
    invisible: ctx.app.settings.clientInvisibleFields,
    permits: (className, op) => classPermits(ctx, className, op),
    require: (className, op) => checkClassPermission(ctx, className, op),
    schemaOf: (className) => ctx.app.classes.cached(className),
  };
}
