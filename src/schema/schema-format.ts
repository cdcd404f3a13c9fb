/**
 * The original `/1.1/schemas` format (leancloud-behaviour §2.2): className -> field -> {type},
 * plus `className` for Pointer and Relation fields. Reserved columns are listed as LeanCloud
 * lists them (objectId String, createdAt/updatedAt Date, ACL ACL), and the built-in fields of
 * system classes appear even before any object has used them, as they do in LeanCloud.
 */
import { hiddenFields } from './hidden-fields.ts';
import type { ClassSchema, FieldSchema } from '../model/class-schema.ts';

/** One field as /1.1/schemas shows it. */
export interface FieldFormat {
  type: string;
  className?: string;
}

/** Columns every class has. */
const RESERVED: Readonly<Record<string, FieldFormat>> = {
  objectId: { type: 'String' },
  createdAt: { type: 'Date' },
  updatedAt: { type: 'Date' },
  ACL: { type: 'ACL' },
};

/**
 * Built-in fields of system classes. `password` is shown as a String field, as LeanCloud does,
 * although its value is never returned; the other stored secrets (hash, salt, tokens) are not
 * fields at all.
 */
const BUILT_IN: Readonly<Record<string, Readonly<Record<string, FieldFormat>>>> = {
  _User: {
    username: { type: 'String' },
    password: { type: 'String' },
    email: { type: 'String' },
    emailVerified: { type: 'Boolean' },
    mobilePhoneNumber: { type: 'String' },
    mobilePhoneVerified: { type: 'Boolean' },
    authData: { type: 'Object' },
  },
  _Role: {
    name: { type: 'String' },
    users: { type: 'Relation', className: '_User' },
    roles: { type: 'Relation', className: '_Role' },
  },
  _File: {
    name: { type: 'String' },
    url: { type: 'String' },
    mime_type: { type: 'String' },
    metaData: { type: 'Object' },
  },
};

function format(f: FieldSchema): FieldFormat {
  return f.className ? { type: f.type, className: f.className } : { type: f.type };
}

/** The schema of one class in the /1.1/schemas format. */
export function formatClassSchema(schema: ClassSchema): Record<string, FieldFormat> {
  const out: Record<string, FieldFormat> = { ...RESERVED, ...(Object.hasOwn(BUILT_IN, schema.name) ? BUILT_IN[schema.name] : {}) };
  const hidden = new Set(hiddenFields(schema.name));
  for (const [name, field] of Object.entries(schema.fields)) {
    if (Object.hasOwn(RESERVED, name) || name.startsWith('_') || (hidden.has(name) && name !== 'password')) continue;
    out[name] = Object.hasOwn(out, name) && Object.hasOwn(BUILT_IN, schema.name) ? out[name] : format(field);
  }
  return out;
}

/** Every class in the /1.1/schemas format, keyed by class name. */
export function formatSchemas(schemas: readonly ClassSchema[]): Record<string, Record<string, FieldFormat>> {
  const out: Record<string, Record<string, FieldFormat>> = {};
  for (const s of schemas) out[s.name] = formatClassSchema(s);
  return out;
}
