import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { ident, sql } from '../sql/fragment.ts';
import type { ClassSchema } from '../schema/types.ts';
import { DEFAULT_ACL, permsOf } from './acl.ts';
import { applyOnCreate, typesOf } from './field-operations.ts';
import { newObjectId } from './object-id.ts';
import { parseWriteBody } from './parse-write.ts';
import { applyRelationChanges } from './relation-rows.ts';
import type { WireObject } from './encode.ts';
import { expandFiles } from './expand-files.ts';

/** The outcome of a create: the stored object in wire form. */
export interface Created {
  objectId: string;
  createdAt: string;
  object: WireObject;
}

/**
 * Creates one object. The class and new fields are registered in the same transaction as the
 * insert, so a failed write leaves no half-made schema; when the class and every field are
 * already known, the insert is one statement with no transaction.
 */
export async function createObject(ctx: RequestContext, className: string, body: unknown): Promise<Created> {
  const parsed = parseWriteBody(body, 'create');
  const acl = parsed.acl ?? DEFAULT_ACL;
  const { rperm, wperm } = permsOf(acl);
  const { data, relations } = applyOnCreate(parsed.ops);
  const types = typesOf(parsed.ops);
  const objectId = newObjectId();
  const now = new Date().toISOString();
  const { db, classes } = ctx.app;
  const insert = sql`INSERT INTO ${ident(className)} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
    VALUES (${objectId}, ${now}::timestamptz, ${now}::timestamptz, ${JSON.stringify(acl)}::jsonb, ${rperm}::text[], ${wperm}::text[], ${JSON.stringify(data)}::jsonb)`;
  const known = classes.cached(className) && classes.knowsAll(className, types);
  if (known && !relations.length) {
    await db.query(insert);
  } else {
    const schema: ClassSchema = await db.transaction(async (tx) => {
      await classes.ensureClass(tx, className);
      const s = await classes.lockFields(tx, className, types);
      await tx.query(insert);
      await applyRelationChanges(tx, className, objectId, relations);
      return s;
    });
    classes.publish(schema);
  }
  const object: WireObject = { ...data, objectId, createdAt: now, updatedAt: now };
  return { objectId, createdAt: now, object };
}

/** Expands file references of a freshly written object for a fetchWhenSave response. */
export async function withFiles(ctx: RequestContext, object: WireObject): Promise<WireObject> {
  await expandFiles(ctx.app.db, [object]);
  return object;
}

/** Refuses writes to a class name that cannot be created by clients. */
export function assertWritableClass(className: string): void {
  if (className === '_File') throw new ApiError('forbidden', 'Files are created through /1.1/files.');
}
