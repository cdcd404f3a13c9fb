/**
 * Friend-model endpoints (§7.2 LeanCloud storage friendship API under /1.1, §7.3 TDS friend
 * service under /friend/v2). Each handler passes the common gate (friend-guard.ts: service on,
 * right model, a user or the master key) before anything else. docs/friendships.md.
 */
import type { RequestContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import { isPlainObject } from '../../../module-api/data.ts';
import { parseFindQuery, ok, type ApiRequest, type ApiResponse, type Route } from '../../../module-api/http.ts';
import { block, unblock } from './block-list.ts';
import { attrsOfBody } from './friend-attrs.ts';
import { followsApply, friendCaller, pathUser, sessionUser, storageFollowCaller, targetId, userPointer, type FriendCaller, type ModelNeed } from './friend-guard.ts';
import { followers, followees, followersAndFollowees, friendsOf, mutualFollowees } from './friend-queries.ts';
import { BLOCKLIST } from './friend-tables.ts';
import { findObjects } from '../../../module-api/reads.ts';
import { follow, unfollow } from './follow.ts';
import { deleteFriend, updateFriendship } from './friendship-update.ts';
import { parseListParams } from './list-params.ts';
import { applyFriendship, answerFriendship } from './mutual-requests.ts';
import { listPage, type ListKind } from './tds-lists.ts';

/** The acting user named by the path (`self` or an id; others only with the master key). */
async function actor(req: ApiRequest, need: ModelNeed): Promise<string> {
  return pathUser(await friendCaller(req.ctx, need), req.params.userId);
}

/**
 * The gate of `/1.1/users/<id>/friendship/<target>` writes shared by both models: in the mutual
 * model the friends service's; otherwise the storage follow API's, which needs no switch.
 */
function sharedCaller(ctx: RequestContext): Promise<FriendCaller> {
  return followsApply(ctx.app) ? storageFollowCaller(ctx) : friendCaller(ctx, 'any');
}

/** The user whose lists a read names: anyone (rows stay ACL-filtered), `self` for the caller. */
async function listOwner(req: ApiRequest): Promise<string> {
  const caller = await storageFollowCaller(req.ctx);
  return req.params.userId === 'self' ? sessionUser(caller) : targetId(req.params.userId);
}

/** The TDS endpoints' body `{objectId}`. */
function bodyTarget(body: unknown): string {
  if (!isPlainObject(body)) throw new ApiError('invalidJson', 'The body must be {"objectId": "<user id>"}.');
  return targetId(body.objectId);
}

/** The answer of the TDS write endpoints (the SDK reads syncCode and message). */
function handled(message: string): ApiResponse {
  return ok({ syncCode: 0, message });
}

async function tdsUser(ctx: RequestContext, need: ModelNeed): Promise<string> {
  return sessionUser(await friendCaller(ctx, need));
}

function listRoute(path: string, kind: ListKind, need: ModelNeed): Route {
  return { method: 'GET', path, handler: async (req) => ok(await listPage(req.ctx, await tdsUser(req.ctx, need), kind, parseListParams(req.query))) };
}

const mutualRoutes: Route[] = [
  { method: 'POST', path: '/1.1/users/friendshipRequests', handler: async (req) => ok(await applyFriendship(req.ctx, req.body), 201) },
  { method: 'PUT', path: '/1.1/users/friendshipRequests/:requestId/accept', handler: async (req) => ok(await answerFriendship(req.ctx, req.params.requestId, 'accept', req.body)) },
  { method: 'PUT', path: '/1.1/users/friendshipRequests/:requestId/decline', handler: async (req) => ok(await answerFriendship(req.ctx, req.params.requestId, 'decline', req.body)) },
  {
    method: 'GET',
    path: '/1.1/users/self/friends',
    handler: async (req) => ok(await friendsOf(req.ctx, await tdsUser(req.ctx, 'mutual'), parseFindQuery(req.query))),
  },
  listRoute('/friend/v2/friends-list', 'friends', 'mutual'),
];

const sharedRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/1.1/users/:userId/friendship/:targetId',
    handler: async (req) => ok(await updateFriendship(req.ctx, pathUser(await sharedCaller(req.ctx), req.params.userId), targetId(req.params.targetId), attrsOfBody(req.body))),
  },
  {
    method: 'DELETE',
    path: '/1.1/users/:userId/friendship/:targetId',
    handler: async (req) => {
      const a = pathUser(await sharedCaller(req.ctx), req.params.userId);
      const b = targetId(req.params.targetId);
      if (!followsApply(req.ctx.app)) await deleteFriend(req.ctx, a, b);
      else await unfollow(req.ctx, a, b);
      return ok({});
    },
  },
  {
    method: 'POST',
    path: '/1.1/users/self/friendBlocklist/:objectId',
    handler: async (req) => ok(await block(req.ctx, await tdsUser(req.ctx, 'any'), targetId(req.params.objectId))),
  },
  {
    method: 'DELETE',
    path: '/1.1/users/self/friendBlocklist/:objectId',
    handler: async (req) => {
      await unblock(req.ctx, await tdsUser(req.ctx, 'any'), targetId(req.params.objectId));
      return ok({});
    },
  },
  {
    method: 'GET',
    path: '/1.1/users/self/friendBlocklist',
    handler: async (req) => {
      const me = await tdsUser(req.ctx, 'any');
      const q = parseFindQuery(req.query);
      const mine = { user: userPointer(me) };
      return ok(await findObjects(req.ctx, BLOCKLIST, { ...q, where: q.where === undefined ? mine : { $and: [q.where, mine] } }));
    },
  },
  {
    method: 'POST',
    path: '/friend/v2/block',
    handler: async (req) => {
      await block(req.ctx, await tdsUser(req.ctx, 'any'), bodyTarget(req.body));
      return handled('blocked');
    },
  },
  {
    method: 'POST',
    path: '/friend/v2/unblock',
    handler: async (req) => {
      await unblock(req.ctx, await tdsUser(req.ctx, 'any'), bodyTarget(req.body));
      return handled('unblocked');
    },
  },
  listRoute('/friend/v2/block-list', 'block', 'any'),
];

const followRoutes: Route[] = [
  {
    method: 'POST',
    path: '/1.1/users/:userId/friendship/:targetId',
    handler: async (req) => ok(await follow(req.ctx, pathUser(await storageFollowCaller(req.ctx), req.params.userId), targetId(req.params.targetId), attrsOfBody(req.body))),
  },
  { method: 'GET', path: '/1.1/users/:userId/followers', handler: async (req) => ok(await followers(req.ctx, await listOwner(req), parseFindQuery(req.query))) },
  { method: 'GET', path: '/1.1/users/:userId/followees', handler: async (req) => ok(await followees(req.ctx, await listOwner(req), parseFindQuery(req.query))) },
  {
    method: 'GET',
    path: '/1.1/users/:userId/followersAndFollowees',
    handler: async (req) => ok(await followersAndFollowees(req.ctx, await listOwner(req), parseFindQuery(req.query))),
  },
  { method: 'GET', path: '/1.1/users/:userId/mutualFollowees', handler: async (req) => ok(await mutualFollowees(req.ctx, await listOwner(req), parseFindQuery(req.query))) },
  {
    method: 'POST',
    path: '/friend/v2/follow',
    handler: async (req) => {
      await follow(req.ctx, await tdsUser(req.ctx, 'follow'), bodyTarget(req.body), attrsOfBody(isPlainObject(req.body) ? req.body.attrs : undefined));
      return handled('followed');
    },
  },
  {
    method: 'POST',
    path: '/friend/v2/unfollow',
    handler: async (req) => {
      await unfollow(req.ctx, await tdsUser(req.ctx, 'follow'), bodyTarget(req.body));
      return handled('unfollowed');
    },
  },
  listRoute('/friend/v2/follow-list', 'follow', 'follow'),
  listRoute('/friend/v2/fans-list', 'fans', 'follow'),
  listRoute('/friend/v2/mutual-list', 'mutual', 'follow'),
];

/** Friend-model endpoints (mutual and follow). */
export const friendshipRoutes: Route[] = [...mutualRoutes, ...sharedRoutes, ...followRoutes];
