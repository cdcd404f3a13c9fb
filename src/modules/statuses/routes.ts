/**
 * The status API (`AV.Status`, `AV.InboxQuery`; docs/statuses.md): send, read and delete
 * statuses, read an inbox, its unread count, reset it, take a status out of it.
 */
import { ApiError } from '../../module-api/errors.ts';
import { parseFindQuery, text, ok, type ApiRequest, type QueryParams, type Route } from '../../module-api/http.ts';
import { isPlainObject, isValidObjectId } from '../../module-api/data.ts';
import { findObjects, getObject } from '../../module-api/reads.ts';
import { deleteFromInbox, inboxCounts, inboxOwner, readInbox, resetUnread } from './inbox.ts';
import { deleteStatus, inboxTypeOf, sendStatus, STATUS_CLASS } from './send-status.ts';
import { statusError } from './statuses-errors.ts';

function statusId(req: ApiRequest): string {
  const id = req.params.statusId;
  if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid status id '${id.slice(0, 80)}'.`);
  return id;
}

/** sinceId / maxId / messageId: a non-negative integer (0 when absent). */
function messageIdParam(q: QueryParams, name: string): number {
  const raw = text(q, name);
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new ApiError('badRequest', `${name} must be a non-negative integer.`);
  return n;
}

/** Parameters of resetUnreadCount: in the body, as the SDK sends them (the query string works too). */
function params(req: ApiRequest): QueryParams {
  return isPlainObject(req.body) ? { ...req.query, ...req.body } : req.query;
}

/** The routes of the status module. */
export const statusRoutes: Route[] = [
  { method: 'POST', path: '/1.1/statuses', handler: async (req) => ok(await sendStatus(req.ctx, req.body), 201) },
  { method: 'GET', path: '/1.1/statuses', handler: async (req) => ok(await findObjects(req.ctx, STATUS_CLASS, parseFindQuery(req.query))) },
  {
    method: 'GET',
    path: '/1.1/statuses/:statusId',
    handler: async (req) => {
      const found = await getObject(req.ctx, STATUS_CLASS, statusId(req), { include: [], returnACL: false });
      if (!found) throw statusError('statusNotFound');
      return ok(found);
    },
  },
  {
    method: 'DELETE',
    path: '/1.1/statuses/:statusId',
    handler: async (req) => {
      await deleteStatus(req.ctx, statusId(req));
      return ok({});
    },
  },
  {
    method: 'GET',
    path: '/1.1/subscribe/statuses',
    handler: async (req) => {
      const q = parseFindQuery(req.query);
      return ok(await readInbox(req.ctx, {
        owner: await inboxOwner(req.ctx, req.query.owner),
        inboxType: inboxTypeOf(text(req.query, 'inboxType')),
        sinceId: messageIdParam(req.query, 'sinceId'),
        maxId: messageIdParam(req.query, 'maxId'),
        where: q.where,
        limit: q.limit,
        skip: q.skip,
        count: q.count,
        keys: q.keys,
        include: q.include,
      }));
    },
  },
  {
    method: 'GET',
    path: '/1.1/subscribe/statuses/count',
    handler: async (req) => ok(await inboxCounts(req.ctx, await inboxOwner(req.ctx, req.query.owner), inboxTypeOf(text(req.query, 'inboxType')))),
  },
  {
    method: 'POST',
    path: '/1.1/subscribe/statuses/resetUnreadCount',
    handler: async (req) => {
      const p = params(req);
      await resetUnread(req.ctx, await inboxOwner(req.ctx, p.owner), inboxTypeOf(p.inboxType));
      return ok({});
    },
  },
  {
    method: 'DELETE',
    path: '/1.1/subscribe/statuses/inbox',
    handler: async (req) => {
      const messageId = messageIdParam(req.query, 'messageId');
      if (messageId === 0) throw new ApiError('badRequest', 'messageId is required.');
      await deleteFromInbox(req.ctx, await inboxOwner(req.ctx, req.query.owner), inboxTypeOf(text(req.query, 'inboxType')), messageId);
      return ok({});
    },
  },
];
