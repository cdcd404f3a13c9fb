import { ApiError } from '../../../module-api/errors.ts';
import { newObjectId, type Acl, encodeRow, type WireObject, OBJECT_COLUMNS, type ObjectRow, type FieldSchema, ident, sql } from '../../../module-api/data.ts';
import { restObjectOf } from '../../../module-api/writes.ts';
import { permsOfAcl } from './friend-acl.ts';
import type { FriendAttrs } from './friend-attrs.ts';
import { userPointer } from './friend-guard.ts';
import { OTHER_FIELD, pointerId, type FriendClass } from './friend-tables.ts';
import type { FriendTx } from './friend-tx.ts';

const USER_POINTER: FieldSchema = { type: 'Pointer', className: '_User' };

/** One friendship row: `owner` is its `user`, `other` the followee/follower/friend/blockedUser. */
export interface RowKey {
  readonly cls: FriendClass;
  readonly owner: string;
  readonly other: string;
}

function otherKey(cls: FriendClass): 'followee' | 'follower' | 'friend' | 'blockedUser' {
  return OTHER_FIELD[cls] as 'followee' | 'follower' | 'friend' | 'blockedUser';
}

function pairFilter(key: RowKey) {
  return sql`${pointerId('user')} = ${key.owner} AND ${pointerId(otherKey(key.cls))} = ${key.other}`;
}

/** What a row write stores besides the two pointers. */
export interface RowWrite extends RowKey {
  readonly fields: Record<string, unknown>;
  readonly fieldTypes: Record<string, FieldSchema>;
  readonly attrs: FriendAttrs;
  readonly acl: Acl;
}

/**
 * Inserts a row, or, when the pair already has one, merges the new fields into it (`merge`)
 * or leaves it alone (`keep`). The pair's unique index decides, so a concurrent duplicate can
 * never become a second row. Returns the row as stored and whether it was new.
 */
export async function upsertRow(ft: FriendTx, w: RowWrite, onExisting: 'merge' | 'keep'): Promise<{ row: WireObject; created: boolean }> {
  const other = otherKey(w.cls);
  await ft.lock(w.cls, { user: USER_POINTER, [other]: USER_POINTER, ...w.fieldTypes, ...w.attrs.types });
  const data = { ...w.attrs.data, ...w.fields, user: userPointer(w.owner), [other]: userPointer(w.other) };
  const { rperm, wperm } = permsOfAcl(w.acl);
  const now = new Date().toISOString();
  const t = ident(w.cls);
  const conflict =
    onExisting === 'merge'
      ? sql`DO UPDATE SET data = ${t}.data || EXCLUDED.data, "updatedAt" = EXCLUDED."updatedAt"`
      : sql`DO UPDATE SET "objectId" = ${t}."objectId"`; // no-op update so RETURNING yields the row
  // The write pipeline: an extension asking for the row before an update gets it read here.
  const onCreate = ft.events.needs(w.cls, 'create');
  const onUpdate = onExisting === 'merge' ? ft.events.needs(w.cls, 'update') : undefined;
  const before = onUpdate?.previous ? await lockedRow(ft, w) : undefined;
  const rows = await ft.tx.query<ObjectRow & { created: boolean }>(sql`INSERT INTO ${t} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
    VALUES (${newObjectId()}, ${now}, ${now}, ${JSON.stringify(w.acl)}::jsonb, ${rperm}::text[], ${wperm}::text[], ${JSON.stringify(data)}::jsonb)
    ON CONFLICT (${pointerId('user')}, ${pointerId(other)}) ${conflict}
    RETURNING ${OBJECT_COLUMNS}, (xmax = 0) AS created`);
  const r = rows[0];
  const created = r.created === true;
  if (created && onCreate.after) ft.events.record({ className: w.cls, op: 'create', objectId: r.objectId, object: restObjectOf(w.cls, r) });
  if (!created && onUpdate?.after) {
    ft.events.record({ className: w.cls, op: 'update', objectId: r.objectId, object: restObjectOf(w.cls, r), previous: before && restObjectOf(w.cls, before), updatedKeys: Object.keys(data) });
  }
  return { row: encodeRow(r, { className: w.cls, withAcl: false }), created };
}

/** The row of a pair, or undefined. `forUpdate` locks it for the rest of the transaction. */
export async function findRow(ft: FriendTx, key: RowKey, forUpdate = false): Promise<WireObject | undefined> {
  const rows = await ft.tx.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM ${ident(key.cls)} WHERE ${pairFilter(key)} ${forUpdate ? sql`FOR UPDATE` : sql``}`);
  return rows[0] ? encodeRow(rows[0], { className: key.cls, withAcl: false }) : undefined;
}

/** The stored row of a pair, locked, as the write pipeline's `previous` image. */
async function lockedRow(ft: FriendTx, key: RowKey): Promise<ObjectRow | undefined> {
  const rows = await ft.tx.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM ${ident(key.cls)} WHERE ${pairFilter(key)} FOR UPDATE`);
  return rows[0];
}

/** Merges fields (and attributes) into an existing row; undefined when the pair has none. */
export async function updateRow(ft: FriendTx, key: RowKey, fields: Record<string, unknown>, types: Record<string, FieldSchema>): Promise<WireObject | undefined> {
  if (Object.keys(types).length) await ft.lock(key.cls, types);
  const needs = ft.events.needs(key.cls, 'update');
  const before = needs.previous ? await lockedRow(ft, key) : undefined;
  const rows = await ft.tx.query<ObjectRow>(sql`UPDATE ${ident(key.cls)} SET data = data || ${JSON.stringify(fields)}::jsonb, "updatedAt" = ${new Date().toISOString()}
    WHERE ${pairFilter(key)} RETURNING ${OBJECT_COLUMNS}`);
  const r = rows[0];
  if (!r) return undefined;
  if (needs.after) {
    ft.events.record({ className: key.cls, op: 'update', objectId: r.objectId, object: restObjectOf(key.cls, r), previous: before && restObjectOf(key.cls, before), updatedKeys: Object.keys(fields) });
  }
  return encodeRow(r, { className: key.cls, withAcl: false });
}

/** Deletes the row of a pair; true when there was one. */
export async function deleteRow(ft: FriendTx, key: RowKey): Promise<boolean> {
  const needs = ft.events.needs(key.cls, 'delete');
  const returning = needs.after ? OBJECT_COLUMNS : sql`"objectId"`;
  const rows = await ft.tx.query<ObjectRow>(sql`DELETE FROM ${ident(key.cls)} WHERE ${pairFilter(key)} RETURNING ${returning}`);
  if (needs.after) for (const r of rows) ft.events.record({ className: key.cls, op: 'delete', objectId: r.objectId, previous: restObjectOf(key.cls, r) });
  return rows.length > 0;
}

/** How many rows a user owns in a class (limits). */
export async function countOwned(ft: FriendTx, cls: FriendClass, owner: string): Promise<number> {
  const [{ n }] = await ft.tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${ident(cls)} WHERE ${pointerId('user')} = ${owner}`);
  return n;
}

/** Throws quotaExceeded when `owner` already has `max` rows of `cls`. */
export async function checkLimit(ft: FriendTx, cls: FriendClass, owner: string, max: number, what: string): Promise<void> {
  if ((await countOwned(ft, cls, owner)) >= max) throw new ApiError('quotaExceeded', `A user may have at most ${max} ${what}.`);
}
