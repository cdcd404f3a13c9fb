import type { RequestContext } from '../app-context.ts';
import { DEFAULT_ACL, parseAcl, type Acl } from '../model/acl.ts';

/**
 * In a configured default ACL this key stands for the user who creates the object (the
 * console's "object creator"); objects created without a session simply lack that entry.
 */
export const CREATOR_KEY = 'creator';

/**
 * The ACL of an object created without one: the class's configured default (with `creator`
 * replaced by the caller's user id), else LeanCloud's `{"*":{"read":true,"write":true}}`.
 */
export async function defaultAclFor(ctx: RequestContext, className: string): Promise<Acl> {
  const { defaultAcl } = await ctx.app.classes.security(className);
  if (!defaultAcl) return DEFAULT_ACL;
  const acl = parseAcl(defaultAcl);
  if (!(CREATOR_KEY in acl)) return acl;
  const { [CREATOR_KEY]: creator, ...rest } = acl;
  const who = await ctx.principal();
  if (who.userId === undefined) return rest;
  const mine = rest[who.userId] ?? {};
  return { ...rest, [who.userId]: { ...(mine.read || creator.read ? { read: true as const } : {}), ...(mine.write || creator.write ? { write: true as const } : {}) } };
}
