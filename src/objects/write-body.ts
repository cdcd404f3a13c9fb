/**
 * A write body as the write pipeline's extensions see it (writes/run-write.ts): the object
 * without the request flags SDKs put into bodies, the flags apart, and stored rows as REST JSON.
 */
import type { RequestContext } from '../app-context.ts';
import { ident, sql } from '../sql/fragment.ts';
import type { RestObject, WriteFlags } from '../writes/write-extension-api.ts';
import { encodeRow } from './encode.ts';
import { OBJECT_COLUMNS, type ObjectRow } from './object-row.ts';
import { WRITE_FLAG_KEYS } from '../model/write-ops.ts';

const FLAG_KEYS: ReadonlySet<string> = new Set(WRITE_FLAG_KEYS);

/** Splits a create/update body into the object (flags removed) and the hook flags. */
export function splitWriteBody(body: unknown): { object: RestObject; flags: WriteFlags } {
  const object: RestObject = {};
  const flags: { -readonly [K in keyof WriteFlags]: unknown } = {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { object, flags };
  for (const [k, v] of Object.entries(body)) {
    if (!FLAG_KEYS.has(k)) object[k] = v;
    else if (k === '__ignore_hooks' || k === '__before' || k === '__after') flags[k] = v;
  }
  return { object, flags };
}

/** A stored row as REST JSON for extensions: every field the master key sees, plus the ACL. */
export function restObjectOf(className: string, row: ObjectRow): RestObject {
  return encodeRow(row, { className, withAcl: true, master: true });
}

/** A freshly built row (create) as REST JSON for extensions. */
export function restObjectOfNew(className: string, data: Record<string, unknown>, meta: { objectId: string; now: string; acl: unknown }): RestObject {
  return restObjectOf(className, { objectId: meta.objectId, createdAt: meta.now, updatedAt: meta.now, acl: meta.acl as ObjectRow['acl'], data });
}

/** The stored object as REST JSON, for before extensions that asked for it. */
export async function storedObject(ctx: RequestContext, className: string, objectId: string): Promise<RestObject | undefined> {
  const rows = await ctx.app.db.query<ObjectRow>(sql`SELECT ${OBJECT_COLUMNS} FROM ${ident(className)} WHERE "objectId" = ${objectId}`);
  return rows[0] ? restObjectOf(className, rows[0]) : undefined;
}
