/**
 * Inboxes (`/1.1/subscribe/statuses...`, the JS SDK's `AV.InboxQuery`, `countUnreadStatuses`,
 * `resetUnreadCount`): the statuses delivered to one owner and inbox type, newest first, paged
 * by messageId (`sinceId` < messageId <= `maxId`), filtered by an ordinary `where` on the
 * status fields. Only the owner (its session) or the master key reads or changes an inbox.
 */
import type { RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { isPlainObject, encodeRow, type WireObject, type ObjectRow, sql } from '../../module-api/data.ts';
import { expandFiles, accessOf, droppedFrom, planQuery, resolveIncludes, projectKeys, type KeySelection } from '../../module-api/reads.ts';
import { ensureInboxTable } from './status-tables.ts';
import { STATUS_CLASS } from './send-status.ts';
import { statusError } from './statuses-errors.ts';

/** What an inbox request names. */
export interface InboxQuery {
  owner: string;
  inboxType: string;
  sinceId: number;
  maxId: number;
  where: unknown;
  limit: number;
  skip: number;
  count: boolean;
  keys?: KeySelection;
  include: string[][];
}

/** The owner parameter: a `_User` pointer (JSON, as the SDK encodes it) or a plain id; only the owner or the master key. */
export async function inboxOwner(ctx: RequestContext, raw: unknown): Promise<string> {
  let v = raw;
  if (typeof raw === 'string' && raw.startsWith('{')) {
    try {
      v = JSON.parse(raw);
    } catch {
      throw new ApiError('invalidJson', "Parameter 'owner' is not valid JSON.");
    }
  }
  const id = isPlainObject(v) && v.__type === 'Pointer' && v.className === '_User' ? v.objectId : v;
  const p = await ctx.principal();
  if (typeof id !== 'string' || id === '') {
    if (p.userId) return p.userId;
    throw new ApiError('badRequest', "The inbox owner is missing: give 'owner' (a _User pointer) or a user session.");
  }
  if (!p.master && id !== p.userId) throw new ApiError('forbidden', 'Only the owner of an inbox (or the master key) may read or change it.');
  return id;
}

/** A page of an inbox: statuses with their messageId, and the count when asked. */
export async function readInbox(ctx: RequestContext, q: InboxQuery): Promise<{ results: WireObject[]; count?: number }> {
  const schema = await ctx.app.classes.find(STATUS_CLASS);
  if (!schema) return q.count ? { results: [], count: 0 } : { results: [] };
  await ensureInboxTable(ctx.app.db);
  const access = await accessOf(ctx);
  const { filter, view } = await planQuery(access, schema, { where: q.where });
  const range = sql`i.owner_id = ${q.owner} AND i.inbox_type = ${q.inboxType} AND i.message_id > ${q.sinceId}::bigint
    AND (${q.maxId}::bigint = 0 OR i.message_id <= ${q.maxId}::bigint)`;
  const from = sql`_larder_status_inbox i JOIN "_Status" ON "_Status"."objectId" = i.status_id`;
  const rows = q.limit === 0 ? [] : await ctx.app.db.query<ObjectRow & { message_id: string }>(sql`SELECT "_Status"."objectId", "_Status"."createdAt", "_Status"."updatedAt",
      "_Status".acl, "_Status".data, i.message_id
    FROM ${from} WHERE ${range} AND ${filter} ORDER BY i.message_id DESC LIMIT ${q.limit} OFFSET ${q.skip}`);
  const results = rows.map((r) => ({ ...encodeRow(r, { className: STATUS_CLASS, withAcl: false, master: view.master, drop: droppedFrom(view, r.objectId) }), messageId: Number(r.message_id) }));
  if (q.include.length) await resolveIncludes({ db: ctx.app.db, classes: ctx.app.classes, access }, results, q.include);
  await expandFiles(ctx.app.db, results);
  const page = q.keys ? results.map((o) => ({ ...projectKeys(o, q.keys), messageId: o.messageId })) : results;
  if (!q.count) return { results: page };
  const [{ n }] = await ctx.app.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${from} WHERE ${range} AND ${filter}`);
  return { results: page, count: n };
}

/** `{total, unread}` of an inbox. */
export async function inboxCounts(ctx: RequestContext, owner: string, inboxType: string): Promise<{ total: number; unread: number }> {
  await ensureInboxTable(ctx.app.db);
  const [r] = await ctx.app.db.query<{ total: number; unread: number }>(sql`SELECT count(*)::int AS total, count(*) FILTER (WHERE unread)::int AS unread
    FROM _larder_status_inbox WHERE owner_id = ${owner} AND inbox_type = ${inboxType}`);
  return r;
}

/** Marks every status of an inbox read. */
export async function resetUnread(ctx: RequestContext, owner: string, inboxType: string): Promise<void> {
  await ensureInboxTable(ctx.app.db);
  await ctx.app.db.query(sql`UPDATE _larder_status_inbox SET unread = false WHERE owner_id = ${owner} AND inbox_type = ${inboxType} AND unread`);
}

/** Takes one status (by messageId) out of an inbox; 404 when it is not there. */
export async function deleteFromInbox(ctx: RequestContext, owner: string, inboxType: string, messageId: number): Promise<void> {
  await ensureInboxTable(ctx.app.db);
  const rows = await ctx.app.db.query(sql`DELETE FROM _larder_status_inbox WHERE owner_id = ${owner} AND inbox_type = ${inboxType} AND message_id = ${messageId}::bigint RETURNING message_id`);
  if (!rows.length) throw statusError('statusNotFound', `No message ${messageId} in this inbox.`);
}
