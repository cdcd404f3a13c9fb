/**
 * Sending and deleting statuses (`POST /1.1/statuses`, `DELETE /1.1/statuses/<id>`). A status is
 * an object of `_Status` (its fields, `source` the sender, `inboxType`); sending it also puts one
 * row into the inbox of each recipient (audience.ts) in one INSERT ... SELECT, so a sender with
 * thousands of followers costs one statement.
 */
import type { RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { createObject } from '../../module-api/writes.ts';
import { isPlainObject, sql } from '../../module-api/data.ts';
import { audienceOf, recipientsSql } from './audience.ts';
import { ensureInboxTable } from './status-tables.ts';
import { statusError } from './statuses-errors.ts';

/** The class statuses are stored in. */
export const STATUS_CLASS = '_Status';
const INBOX_TYPE = /^[A-Za-z0-9_]{1,64}$/;

/** An inbox type (`default`, `private`, or the app's own), checked. */
export function inboxTypeOf(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'default';
  if (typeof value !== 'string' || !INBOX_TYPE.test(value)) throw new ApiError('badRequest', 'inboxType must be letters, digits or underscore (at most 64).');
  return value;
}

/** The caller as a status sender: a user session (or the master key, which may name any source). */
export async function sender(ctx: RequestContext): Promise<string | undefined> {
  const p = await ctx.principal();
  if (!p.master && !p.userId) throw new ApiError('sessionRequired', 'Sending a status needs the session of a user (X-LC-Session).');
  return p.userId;
}

/** Sends a status: creates the `_Status` object and fills the recipients' inboxes. */
export async function sendStatus(ctx: RequestContext, body: unknown): Promise<{ objectId: string; createdAt: string }> {
  if (!isPlainObject(body) || !isPlainObject(body.data)) throw new ApiError('invalidJson', 'The body must be {"query": {...}, "data": {...}, "inboxType": "..."}.');
  const me = await sender(ctx);
  const inboxType = inboxTypeOf(body.inboxType);
  const data: Record<string, unknown> = { ...body.data };
  const source = data.source;
  const sourceId = isPlainObject(source) && source.__type === 'Pointer' && source.className === '_User' ? source.objectId : undefined;
  if (source === undefined && me) data.source = { __type: 'Pointer', className: '_User', objectId: me };
  else if (!ctx.master && sourceId !== me) throw new ApiError('forbidden', 'The source of a status must be its sender.');
  if (Object.hasOwn(data, 'inboxType') || Object.hasOwn(data, 'messageId')) throw new ApiError('readOnlyKey', 'inboxType and messageId are set by the server.');
  data.inboxType = inboxType;
  // The recipients are resolved before anything is written: a bad query writes nothing.
  const audience = await audienceOf(ctx, body.query, me);
  await ensureInboxTable(ctx.app.db);
  const created = await createObject(ctx, STATUS_CLASS, data);
  try {
    const recipients = await recipientsSql(ctx, audience);
    if (recipients) {
      await ctx.app.db.query(sql`INSERT INTO _larder_status_inbox (owner_id, inbox_type, status_id)
        SELECT r.id, ${inboxType}, ${created.objectId} FROM (${recipients}) r ORDER BY r.id
        ON CONFLICT (owner_id, inbox_type, status_id) DO NOTHING`);
    }
  } catch (e) {
    // No status without its deliveries: undo the object, then report the failure.
    await ctx.app.db.query(sql`DELETE FROM "_Status" WHERE "objectId" = ${created.objectId}`);
    throw e;
  }
  return { objectId: created.objectId, createdAt: created.createdAt };
}

/** Deletes a status (its sender or the master key) and takes it out of every inbox. */
export async function deleteStatus(ctx: RequestContext, statusId: string): Promise<void> {
  const me = await sender(ctx);
  if (!(await ctx.app.classes.find(STATUS_CLASS))) throw statusError('statusNotFound');
  await ensureInboxTable(ctx.app.db);
  await ctx.app.db.transaction(async (tx) => {
    const rows = await tx.query<{ source: string | null }>(sql`SELECT data->'source'->>'objectId' AS source FROM "_Status" WHERE "objectId" = ${statusId} FOR UPDATE`);
    if (!rows[0]) throw statusError('statusNotFound');
    if (!ctx.master && rows[0].source !== me) throw new ApiError('forbidden', 'Only the sender of a status may delete it.');
    await tx.query(sql`DELETE FROM _larder_status_inbox WHERE status_id = ${statusId}`);
    await tx.query(sql`DELETE FROM "_Status" WHERE "objectId" = ${statusId}`);
  });
}
