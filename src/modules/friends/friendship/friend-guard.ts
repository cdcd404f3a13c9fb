import type { AppContext, RequestContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import { isValidObjectId, sql, type Queryable } from '../../../module-api/data.ts';
import type { FriendModel } from '../friends-settings.ts';
import { requireFriendsEnabled } from '../friends-enabled.ts';
import { friendsSettings } from '../friends-settings.ts';
import { friendsError } from '../friends-errors.ts';

/** Which model an endpoint belongs to; 'any' for endpoints both models share (block list). */
export type ModelNeed = Exclude<FriendModel, ''> | 'any';

const MODEL_NAMES = { mutual: 'mutual friends', follow: 'follow' } as const;

/**
 * Refuses an endpoint while the friend model is unset or is the other model. The choice is
 * the operator's and permanent, so Larder never picks one implicitly on first use.
 */
export function requireModel(app: AppContext, need: ModelNeed): void {
  const model = friendsSettings(app).friendModel;
  if (model === '') {
    throw friendsError('friendModelMismatch', "No friend model is chosen for this app. The operator must set friendModel to 'mutual' or 'follow' (PUT /1.1/larder/settings with the master key, or `larder settings set friendModel <model>`); the choice is permanent.");
  }
  if (need !== 'any' && need !== model) {
    throw friendsError('friendModelMismatch', `This endpoint belongs to the ${MODEL_NAMES[need]} model, but this app uses the ${MODEL_NAMES[model]} model.`);
  }
}

/** Who acts on a friendship endpoint. */
export interface FriendCaller {
  readonly master: boolean;
  /** The session's user; absent only for master-key calls without a session. */
  readonly userId?: string;
}

/** The common gate of every friendship endpoint: service on, model right, a user or the master key. */
export async function friendCaller(ctx: RequestContext, need: ModelNeed): Promise<FriendCaller> {
  requireFriendsEnabled(ctx.app);
  requireModel(ctx.app, need);
  return signedIn(ctx);
}

/** A user session or the master key (403/206 otherwise). */
async function signedIn(ctx: RequestContext): Promise<FriendCaller> {
  const p = await ctx.principal();
  if (!p.master && !p.userId) throw new ApiError('sessionRequired', 'This endpoint needs the session of a user (X-LC-Session).');
  return { master: p.master, userId: p.userId };
}

/**
 * The gate of the storage SDK's follow API (`AV.User#follow` / `unfollow`, followers, followees
 * and the status inbox built on them): every LeanCloud app had it long before the TDS friends
 * service and its console switch, so it answers without `richPresenceSync` and without a chosen
 * friend model (an unchosen model acts as the follow model here). Only an app that chose the
 * mutual model refuses it, because there `_Followee` rows are friendships, not follows.
 */
export async function storageFollowCaller(ctx: RequestContext): Promise<FriendCaller> {
  if (friendsSettings(ctx.app).friendModel === 'mutual') requireModel(ctx.app, 'follow');
  return signedIn(ctx);
}

/** True when the app uses follows (the follow model, or no model chosen yet: the storage follow API). */
export function followsApply(app: AppContext): boolean {
  return friendsSettings(app).friendModel !== 'mutual';
}

/** The session's user, for endpoints that always act as the caller (the TDS /friend/v2 ones). */
export function sessionUser(caller: FriendCaller): string {
  if (!caller.userId) throw new ApiError('sessionRequired', 'This endpoint acts as the current user and needs its session (X-LC-Session), also with the master key.');
  return caller.userId;
}

/**
 * The user a path names (`self` or an objectId). Clients may act only as themselves; the
 * master key may act as anyone (operator tools, migrations).
 */
export function pathUser(caller: FriendCaller, id: string): string {
  if (id === 'self') return sessionUser(caller);
  if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid user id '${id.slice(0, 80)}'.`);
  if (!caller.master && id !== caller.userId) throw new ApiError('forbidden', 'A user may only change its own friendships.');
  return id;
}

/** A user id from a path or body (the other user of a friendship): checked syntactically. */
export function targetId(value: unknown, what = 'user'): string {
  if (typeof value !== 'string' || !isValidObjectId(value)) {
    throw new ApiError('missingObjectId', `Invalid ${what} id ${JSON.stringify(String(value)).slice(0, 80)}.`);
  }
  return value;
}

/** Throws 211 unless every id names an existing user. */
export async function requireUsers(q: Queryable, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  const rows = await q.query<{ objectId: string }>(sql`SELECT "objectId" FROM "_User" WHERE "objectId" = ANY(${unique}::text[])`);
  const found = new Set(rows.map((r) => r.objectId));
  const missing = unique.find((id) => !found.has(id));
  if (missing) throw new ApiError('userNotFound', `Could not find user ${missing}.`);
}

/** A stored pointer to a user. */
export function userPointer(objectId: string): { __type: 'Pointer'; className: '_User'; objectId: string } {
  return { __type: 'Pointer', className: '_User', objectId };
}
