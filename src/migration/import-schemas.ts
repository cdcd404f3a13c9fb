/**
 * `<Class>_schema.json` files: column types of a class (LeanCloud's schema export, and Larder's
 * own export). They name the class behind a Relation column when no row shows it, and give
 * types to columns no imported row has a value for. Registered after the data, so types the
 * data already locked win; a disagreement is reported, never fatal.
 */
import { isApiError } from '../errors/api-error.ts';
import { isClassName } from '../model/names.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { isReservedKey, isValidKeyName } from '../model/names.ts';
import type { FieldSchema, FieldType } from '../model/class-schema.ts';
import type { ImportTarget } from './write-objects.ts';

const TYPES: ReadonlySet<string> = new Set<FieldType>(['String', 'Number', 'Boolean', 'Date', 'Bytes', 'File', 'Array', 'Object', 'GeoPoint', 'Pointer', 'Relation']);

/** The usable column types of a schema document (`{fields:{...}}` or the fields map itself). */
export function parseSchemaFile(text: string): Record<string, FieldSchema> {
  const doc: unknown = JSON.parse(text);
  const fields = isPlainObject(doc) && isPlainObject(doc.fields) ? doc.fields : doc;
  if (!isPlainObject(fields)) throw new Error('expected {"fields": {...}}');
  const out: Record<string, FieldSchema> = {};
  for (const [name, f] of Object.entries(fields)) {
    if (!isValidKeyName(name) || isReservedKey(name) || !isPlainObject(f) || typeof f.type !== 'string' || !TYPES.has(f.type)) continue;
    const type = f.type as FieldType;
    if (type === 'Pointer' || type === 'Relation') {
      if (isClassName(f.className)) out[name] = { type, className: f.className };
    } else {
      out[name] = { type };
    }
  }
  return out;
}

/** Registers the columns of a schema file; returns a message per column that could not be. */
export async function registerSchema(target: ImportTarget, className: string, fields: Record<string, FieldSchema>): Promise<string[]> {
  const problems: string[] = [];
  const schema = await target.db.transaction(async (tx) => {
    await target.classes.ensureClass(tx, className);
    let s = await target.classes.lockFields(tx, className, {});
    for (const [name, type] of Object.entries(fields)) {
      try {
        // Its checks run before its UPDATE: a refusal leaves the transaction usable.
        s = await target.classes.lockFields(tx, className, { [name]: type });
      } catch (err) {
        if (!isApiError(err)) throw err;
        problems.push(`${className}.${name}: ${err.message}`);
      }
    }
    return s;
  });
  target.classes.publish(schema);
  return problems;
}
