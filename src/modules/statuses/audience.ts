/**
 * Who receives a status: the `query` of `POST /1.1/statuses` names the recipients, as the JS
 * SDK's `src/status.js` builds it. Two forms are read directly, whatever their size:
 *   - the sender's followers: `{className: "_Follower", keys: "follower", where: {user: <sender>}}`
 *     (`AV.Status.sendStatusToFollowers`, and `status.send()` without a query);
 *   - given users: `{className: "_User", where: {objectId: <id> | {$in: [ids]}}}`
 *     (`AV.Status.sendPrivateStatus`), which needs no permission to query `_User`.
 * Any other query runs as the caller (ACL, class permissions, limit 1..1000) through the class
 * query use-case; its results are the recipients when the class is `_User`, otherwise the `_User`
 * pointers in the one field named by `keys`.
 */
import type { RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { isFieldReference, isPlainObject, isValidObjectId, checkClassName, sql } from '../../module-api/data.ts';
import { findObjects, parseLimit, parseSkip } from '../../module-api/reads.ts';

/** Most users one `$in` of a private status may name. */
export const MAX_PRIVATE_RECIPIENTS = 1000;

/** Where recipients come from: a SQL sub-select of user ids, or a list. */
export type Audience = { kind: 'followers'; of: string } | { kind: 'users'; ids: string[] };

function badQuery(why: string): never {
  throw new ApiError('invalidQuery', `Invalid status query: ${why}.`);
}

function pointerTo(v: unknown): string | undefined {
  return isPlainObject(v) && v.__type === 'Pointer' && v.className === '_User' && typeof v.objectId === 'string' ? v.objectId : undefined;
}

/** The ids of `{objectId: id}` or `{objectId: {$in: [...]}}`, else undefined. */
function idsOfWhere(where: unknown): string[] | undefined {
  if (!isPlainObject(where) || Object.keys(where).length !== 1 || !Object.hasOwn(where, 'objectId')) return undefined;
  const v = where.objectId;
  if (typeof v === 'string') return [v];
  if (isPlainObject(v) && Object.keys(v).length === 1 && Array.isArray(v.$in) && v.$in.every((x) => typeof x === 'string')) return v.$in as string[];
  return undefined;
}

/** The recipients a status query names, for a sender (`senderId`, or the master key). */
export async function audienceOf(ctx: RequestContext, query: unknown, senderId: string | undefined): Promise<Audience> {
  if (!isPlainObject(query)) badQuery('query must be an object {className, where, keys}');
  const className = checkClassName(typeof query.className === 'string' ? query.className : '');
  if (className === '_Follower' && query.keys === 'follower' && isPlainObject(query.where) && Object.keys(query.where).length === 1) {
    const owner = pointerTo(query.where.user);
    if (owner && (ctx.master || owner === senderId)) return { kind: 'followers', of: owner };
  }
  if (className === '_User') {
    const ids = idsOfWhere(query.where);
    if (ids) {
      if (ids.length > MAX_PRIVATE_RECIPIENTS) badQuery(`at most ${MAX_PRIVATE_RECIPIENTS} users`);
      if (!ids.every(isValidObjectId)) badQuery('invalid user id');
      return { kind: 'users', ids: [...new Set(ids)] };
    }
  }
  const key = typeof query.keys === 'string' ? query.keys.split(',')[0].trim() : '';
  if (className !== '_User' && !isFieldReference(key)) badQuery(`keys must name the field of ${className} that points to the recipients`);
  const found = await findObjects(ctx, className, {
    where: query.where,
    limit: parseLimit(query.limit),
    skip: parseSkip(query.skip),
    include: [],
    count: false,
    returnACL: false,
  });
  const ids = found.results
    .flatMap((o) => (className === '_User' ? [o.objectId] : Array.isArray(o[key]) ? (o[key] as unknown[]) : [o[key]]))
    .map((v) => (typeof v === 'string' ? v : pointerTo(v)))
    .filter((v): v is string => typeof v === 'string');
  return { kind: 'users', ids: [...new Set(ids)] };
}

/** A SQL select of the recipients' ids that exist as users (for INSERT ... SELECT). */
export async function recipientsSql(ctx: RequestContext, a: Audience) {
  if (a.kind === 'followers') {
    if ((await ctx.app.classes.find('_Follower')) === undefined) return undefined;
    return sql`SELECT DISTINCT f.data->'follower'->>'objectId' AS id FROM "_Follower" f
      WHERE f.data->'user'->>'objectId' = ${a.of} AND f.data->'follower'->>'objectId' IS NOT NULL`;
  }
  if (!a.ids.length) return undefined;
  return sql`SELECT u."objectId" AS id FROM "_User" u WHERE u."objectId" = ANY(${a.ids}::text[])`;
}
