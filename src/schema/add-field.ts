/**
 * Adding a field to a class without writing an object (the console's "add column"): the field's
 * type is locked in the catalogue exactly as a first write would lock it (class-registry.ts), so
 * later writes of another type get 111. Creates the class when it does not exist yet.
 */
import type { AppContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { checkClassName, isReservedKey, isValidKeyName } from '../model/names.ts';
import { formatClassSchema } from './schema-format.ts';
import type { FieldSchema, FieldType } from '../model/class-schema.ts';

/** Types a field may be declared with (ACL is the reserved column; Bytes only arrives by writes). */
const DECLARABLE: readonly FieldType[] = ['String', 'Number', 'Boolean', 'Date', 'Array', 'Object', 'GeoPoint', 'Pointer', 'Relation', 'File'];

/** A parsed `{name, type, className?}` body. */
export interface NewField {
  name: string;
  field: FieldSchema;
}

/** Parses the body of POST /1.1/larder/classes/<className>/fields. */
export function parseNewField(body: unknown): NewField {
  if (!isPlainObject(body)) throw new ApiError('invalidJson', 'Expected {"name": <field>, "type": <type>, "className": <target class, Pointer and Relation only>}.');
  const { name, type, className } = body;
  for (const k of Object.keys(body)) {
    if (k !== 'name' && k !== 'type' && k !== 'className') throw new ApiError('invalidJson', `Unknown member "${k.slice(0, 40)}"; expected name, type, className.`);
  }
  if (typeof name !== 'string' || !isValidKeyName(name) || isReservedKey(name)) {
    throw new ApiError('invalidKeyName', `Invalid field name ${JSON.stringify(String(name).slice(0, 80))}: a letter, then letters, digits or _; not objectId, createdAt, updatedAt, className or ACL.`);
  }
  if (typeof type !== 'string' || !(DECLARABLE as readonly string[]).includes(type)) {
    throw new ApiError('incorrectType', `Invalid field type ${JSON.stringify(String(type).slice(0, 40))}; one of ${DECLARABLE.join(', ')}.`);
  }
  const t = type as FieldType;
  const needsTarget = t === 'Pointer' || t === 'Relation';
  if (needsTarget !== (className !== undefined)) {
    throw new ApiError('invalidJson', needsTarget ? `A ${t} field needs "className", its target class.` : `"className" is only for Pointer and Relation fields.`);
  }
  if (needsTarget && typeof className !== 'string') throw new ApiError('invalidJson', '"className" must be a string.');
  return { name, field: needsTarget ? { type: t, className: checkClassName(className as string) } : { type: t } };
}

/** Declares the field; returns the class's schema in the /1.1/schemas format. */
export async function addField(app: AppContext, className: string, body: unknown) {
  const name = checkClassName(className);
  const { name: key, field } = parseNewField(body);
  const existing = await app.classes.find(name);
  if (existing && Object.hasOwn(formatClassSchema(existing), key)) {
    throw new ApiError('incorrectType', `Field '${key}' already exists in ${name}.`);
  }
  const schema = await app.db.transaction(async (tx) => {
    await app.classes.ensureClass(tx, name);
    return app.classes.lockFields(tx, name, { [key]: field });
  });
  app.classes.forget(name);
  return formatClassSchema(schema);
}
