import type { RequestContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import { isPlainObject, isValidObjectId, type ObjectRow, OBJECT_COLUMNS, sql, toIso } from '../../../module-api/data.ts';
import { restObjectOf } from '../../../module-api/writes.ts';
import { notifyUsers } from '../realtime/notify.ts';
import { refuseIfBlocked } from './block-rules.ts';
import { friendshipAcl, requestAcl } from './friend-acl.ts';
import { attrsOfBody } from './friend-attrs.ts';
import { friendCaller, requireUsers, targetId } from './friend-guard.ts';
import { findRow, upsertRow } from './friend-rows.ts';
import { ensureFriendTables, FOLLOWEE, REQUEST } from './friend-tables.ts';
import { friendTransaction } from './friend-tx.ts';
import { friendsSettings } from '../friends-settings.ts';

const BOOLEAN = { type: 'Boolean' } as const;
const STRING = { type: 'String' } as const;

function pointerTarget(v: unknown, what: string): string {
  if (!isPlainObject(v) || v.__type !== 'Pointer' || v.className !== '_User') {
    throw new ApiError('invalidPointer', `'${what}' must be a Pointer to _User.`);
  }
  return targetId(v.objectId, what);
}

/**
 * POST /1.1/users/friendshipRequests (§7.2): creates a pending `_FriendshipRequest` and the
 * requester's half of the friendship, `_Followee {user, followee: friend, friendStatus: false}`,
 * in one transaction; then tells the target (friendship/request/apply).
 */
export async function applyFriendship(ctx: RequestContext, body: unknown): Promise<{ objectId: string; createdAt: string }> {
  const caller = await friendCaller(ctx, 'mutual');
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  const requester = body.user === undefined && caller.userId ? caller.userId : pointerTarget(body.user, 'user');
  if (!caller.master && requester !== caller.userId) throw new ApiError('forbidden', "'user' must be the current user.");
  const friend = pointerTarget(body.friend, 'friend');
  if (friend === requester) throw new ApiError('badRequest', 'A user cannot send a friend request to itself.');
  const attrs = attrsOfBody(body.friendship === undefined ? undefined : { friendship: body.friendship });
  const mode = friendsSettings(ctx.app).friendshipACL;
  const created = await friendTransaction(ctx, [requester, friend], async (ft) => {
    await requireUsers(ft.tx, [requester, friend]);
    await refuseIfBlocked(ft.tx, requester, friend);
    const mine = await findRow(ft, { cls: FOLLOWEE, owner: requester, other: friend });
    if (mine?.friendStatus === true) throw new ApiError('duplicateValue', 'These users are already friends.');
    const existing = await findRow(ft, { cls: REQUEST, owner: requester, other: friend });
    if (existing) {
      const why = existing.status === 'declined'
        ? 'The friend request was declined; delete it (DELETE /1.1/classes/_FriendshipRequest/<id>) to apply again.'
        : 'A friend request to this user already exists.';
      throw new ApiError('duplicateValue', why);
    }
    const req = await upsertRow(ft, { cls: REQUEST, owner: requester, other: friend, fields: { status: 'pending' }, fieldTypes: { status: STRING }, attrs: { data: {}, types: {} }, acl: requestAcl(mode, requester, friend) }, 'keep');
    // A concurrent apply that won the race leaves its row here: refuse rather than report it as ours.
    if (!req.created) throw new ApiError('duplicateValue', 'A friend request to this user already exists.');
    await upsertRow(ft, { cls: FOLLOWEE, owner: requester, other: friend, fields: { friendStatus: false }, fieldTypes: { friendStatus: BOOLEAN }, attrs, acl: friendshipAcl(mode, requester, friend) }, 'merge');
    return { objectId: String(req.row.objectId), createdAt: String(req.row.createdAt) };
  });
  await notifyUsers(ctx.app, [friend], 'friendship/request/apply', { requestId: created.objectId });
  return created;
}

interface RequestPair {
  requester: string;
  target: string;
}

async function loadPair(ctx: RequestContext, requestId: string): Promise<RequestPair> {
  if (!isValidObjectId(requestId)) throw new ApiError('missingObjectId', `Invalid request id '${requestId.slice(0, 80)}'.`);
  await ensureFriendTables(ctx.app);
  const rows = await ctx.app.db.query<{ data: Record<string, unknown> }>(sql`SELECT data FROM "_FriendshipRequest" WHERE "objectId" = ${requestId}`);
  if (!rows[0]) throw new ApiError('classNotFound', `Friend request ${requestId} not found.`);
  const d = rows[0].data;
  return { requester: pointerTarget(d.user, 'user'), target: pointerTarget(d.friend, 'friend') };
}

/** The answer of accept and decline. */
export interface Answered {
  objectId: string;
  updatedAt: string;
}

/**
 * PUT /1.1/users/friendshipRequests/<id>/accept|decline. Only the target (or the master key)
 * answers. Accept makes both halves `friendStatus: true` (creating the target's half with its
 * attributes); decline only marks the request. A declined request can still be accepted later
 * (the target changed its mind); an accepted one cannot be answered again.
 */
export async function answerFriendship(ctx: RequestContext, requestId: string, answer: 'accept' | 'decline', body: unknown): Promise<Answered> {
  const caller = await friendCaller(ctx, 'mutual');
  const pair = await loadPair(ctx, requestId);
  if (!caller.master && caller.userId !== pair.target) throw new ApiError('forbidden', 'Only the user a friend request was sent to may answer it.');
  const attrs = answer === 'accept' ? attrsOfBody(body) : undefined;
  const mode = friendsSettings(ctx.app).friendshipACL;
  const out = await friendTransaction(ctx, [pair.requester, pair.target], async (ft) => {
    const rows = await ft.tx.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM "_FriendshipRequest" WHERE "objectId" = ${requestId} FOR UPDATE`);
    if (!rows[0]) throw new ApiError('classNotFound', `Friend request ${requestId} not found.`);
    const status = rows[0].data.status;
    if (status === 'accepted') throw new ApiError('badRequest', 'This friend request was already accepted.');
    if (answer === 'decline' && status === 'declined') throw new ApiError('badRequest', 'This friend request was already declined.');
    const now = new Date().toISOString();
    const updated = await ft.tx.query<ObjectRow>(sql`UPDATE "_FriendshipRequest" SET data = data || ${JSON.stringify({ status: answer === 'accept' ? 'accepted' : 'declined' })}::jsonb, "updatedAt" = ${now} WHERE "objectId" = ${requestId} RETURNING ${OBJECT_COLUMNS}`);
    if (ft.events.needs(REQUEST, 'update').after) {
      ft.events.record({ className: REQUEST, op: 'update', objectId: requestId, object: restObjectOf(REQUEST, updated[0]), previous: restObjectOf(REQUEST, rows[0]), updatedKeys: ['status'] });
    }
    if (answer === 'accept') {
      const { requester, target } = pair;
      await upsertRow(ft, { cls: FOLLOWEE, owner: requester, other: target, fields: { friendStatus: true }, fieldTypes: { friendStatus: BOOLEAN }, attrs: { data: {}, types: {} }, acl: friendshipAcl(mode, requester, target) }, 'merge');
      await upsertRow(ft, { cls: FOLLOWEE, owner: target, other: requester, fields: { friendStatus: true }, fieldTypes: { friendStatus: BOOLEAN }, attrs: attrs ?? { data: {}, types: {} }, acl: friendshipAcl(mode, target, requester) }, 'merge');
    }
    return { objectId: requestId, updatedAt: toIso(now) };
  });
  await notifyUsers(ctx.app, [pair.requester], answer === 'accept' ? 'friendship/request/accept' : 'friendship/request/refund', { requestId });
  return out;
}
