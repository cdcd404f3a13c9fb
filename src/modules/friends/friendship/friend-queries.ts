import type { RequestContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import { isPlainObject } from '../../../module-api/data.ts';
import { findObjects, type FindQuery, type FindResult, parseInclude } from '../../../module-api/reads.ts';
import { blockedIds } from './block-rules.ts';
import { userPointer } from './friend-guard.ts';
import { friendTablesReady, FOLLOWEE, FOLLOWER } from './friend-tables.ts';

/**
 * The friendship queries of §7.2 are class queries on `_Follower` / `_Followee` with the owner
 * fixed: the client's `where` is ANDed with `{user: <owner>}`, and everything else (order,
 * skip, limit, count, keys, include) is the ordinary query. Rows are filtered by their ACL like
 * any query, so reading someone else's followers shows only what friendshipACL lets the caller
 * see (public: all; shared: the rows naming the caller; private: nothing).
 */
function owned(q: FindQuery, owner: string, extra: Record<string, unknown> = {}): FindQuery {
  const mine = { user: userPointer(owner), ...extra };
  return { ...q, where: q.where === undefined ? mine : { $and: [q.where, mine] } };
}

/** GET /1.1/users/<id>/followers: `_Follower` rows of the user. */
export function followers(ctx: RequestContext, owner: string, q: FindQuery): Promise<FindResult> {
  return findObjects(ctx, FOLLOWER, owned(q, owner));
}

/** GET /1.1/users/<id>/followees: `_Followee` rows of the user. */
export function followees(ctx: RequestContext, owner: string, q: FindQuery): Promise<FindResult> {
  return findObjects(ctx, FOLLOWEE, owned(q, owner));
}

/** GET /1.1/users/<id>/followersAndFollowees: both lists; with count=1 their sizes too. */
export async function followersAndFollowees(ctx: RequestContext, owner: string, q: FindQuery): Promise<Record<string, unknown>> {
  const [a, b] = await Promise.all([followers(ctx, owner, q), followees(ctx, owner, q)]);
  const out: Record<string, unknown> = { followers: a.results, followees: b.results };
  if (q.count) {
    out.followers_count = a.count ?? 0;
    out.followees_count = b.count ?? 0;
  }
  return out;
}

function mentions(where: unknown, keys: readonly string[]): boolean {
  if (Array.isArray(where)) return where.some((w) => mentions(w, keys));
  if (!isPlainObject(where)) return false;
  return Object.entries(where).some(([k, v]) => keys.includes(k) || mentions(v, keys));
}

/**
 * GET /1.1/users/<id>/mutualFollowees: the user's followees that follow it back
 * (`friendStatus: true`), followee always included. `where` may not name user or followee:
 * the owner is fixed and the followee set is the answer.
 */
export function mutualFollowees(ctx: RequestContext, owner: string, q: FindQuery): Promise<FindResult> {
  if (mentions(q.where, ['user', 'followee'])) throw new ApiError('invalidQuery', "The where of mutualFollowees may not mention 'user' or 'followee'.");
  const include = q.include.some((p) => p.join('.') === 'followee') ? q.include : [...q.include, ...parseInclude('followee')];
  return findObjects(ctx, FOLLOWEE, owned({ ...q, include }, owner, { friendStatus: true }));
}

/**
 * GET /1.1/users/self/friends (mutual model): the caller's accepted friendships, minus the
 * users it blocked. The Java SDK sends `where={"user":…,"friendStatus":true}&include=followee`,
 * which the fixed conditions simply repeat.
 */
export async function friendsOf(ctx: RequestContext, owner: string, q: FindQuery): Promise<FindResult> {
  if (!(await friendTablesReady(ctx.app))) return q.count ? { results: [], count: 0 } : { results: [] };
  const blocked = await blockedIds(ctx.app.db, owner);
  const extra: Record<string, unknown> = { friendStatus: true };
  if (blocked.length) extra.followee = { $nin: blocked.map(userPointer) };
  return findObjects(ctx, FOLLOWEE, owned(q, owner, extra));
}
