/**
 * One object in LeanCloud's REST/export form -> the row Larder stores, in JS and without I/O, so
 * that an import computes its rows fast and a malformed record is rejected before any SQL runs.
 * The export writes createdAt/updatedAt as plain ISO strings and every other Date as
 * `{"__type":"Date","iso":...}` (leancloud-export-format §3); both forms are accepted everywhere.
 */
import { isApiError } from '../errors/api-error.ts';
import { parseAcl, permsOf, type Acl } from '../model/acl.ts';
import { decodeValue, fieldTypeOf } from '../objects/decode-value.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { normalizeIso } from '../model/dates.ts';
import { isValidObjectId } from '../model/object-id.ts';
import { checkFieldName } from '../objects/parse-write.ts';
import type { FieldSchema } from '../model/class-schema.ts';

/** A record that cannot be imported; `message` says why (file and line are added by the caller). */
export class RecordError extends Error {}

/** A record ready for the upsert. */
export interface PreparedRow {
  readonly objectId: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly acl: Acl;
  readonly rperm: readonly string[];
  readonly wperm: readonly string[];
  readonly data: Record<string, unknown>;
  /** The schema type each non-null field implies (for the type lock). */
  readonly types: Record<string, FieldSchema>;
  /** Fields left out of the row, with the reason (e.g. `bcryptPassword`). */
  readonly dropped: readonly DroppedField[];
}

/** A field present in the record that was not imported, and why. */
export interface DroppedField {
  readonly field: string;
  readonly reason: string;
}

/** Fields that never go into the data document: they are columns, or wire-only markers. */
const COLUMNS = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);
/** REST decorations some tools leave on objects (`__type:"Object"`, `className` of includes). */
const WIRE_ONLY = new Set(['__type', 'className']);

/**
 * Fields Larder cannot use, dropped with a reason rather than failing the record. LeanCloud's own
 * import takes bcrypt hashes in `bcryptPassword`, but Larder verifies only scrypt and LeanCloud's
 * SHA-512 hashes (src/users/password.ts): such users must reset their password.
 */
const UNSUPPORTED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  _User: { bcryptPassword: 'bcrypt hashes cannot be verified by Larder; the user must reset the password' },
};

/** Public read and write: LeanCloud's default ACL, used when a record carries none. */
const PUBLIC_ACL: Acl = { '*': { read: true, write: true } };

function message(err: unknown): string {
  return isApiError(err) || err instanceof Error ? err.message : String(err);
}

const CANONICAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The exported form `YYYY-MM-DDTHH:MM:SS.mmmZ`, checked without building a Date: every record
 * has two such timestamps, and normalizeIso's Date round trip was the import's top JS cost.
 * Anything else (other forms, Feb 29 of a common year) goes through normalizeIso.
 */
function canonicalIso(s: string): string | undefined {
  const m = CANONICAL.exec(s);
  if (!m) return undefined;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1] || (month === 2 && day === 29)) return undefined;
  return Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60 ? s : undefined;
}

/** A createdAt/updatedAt value: plain ISO string or `{__type:"Date", iso}`; undefined if absent. */
function timestamp(raw: Record<string, unknown>, key: 'createdAt' | 'updatedAt'): string | undefined {
  const v = raw[key];
  if (v === undefined || v === null) return undefined;
  const iso = typeof v === 'string' ? v : isPlainObject(v) && v.__type === 'Date' && typeof v.iso === 'string' ? v.iso : undefined;
  const normal = iso === undefined ? undefined : canonicalIso(iso) ?? normalizeIso(iso);
  if (!normal) throw new RecordError(`${key} is not a date: ${JSON.stringify(v).slice(0, 80)}`);
  return normal;
}

/**
 * A `_File` pointer is how some tools write a file field; the SDKs read file fields as
 * `{__type:"File"}`, so it is stored as one (leancloud-export-format §3: "accept all three").
 */
function fileFromPointer(v: unknown): unknown {
  if (isPlainObject(v) && v.__type === 'Pointer' && v.className === '_File' && typeof v.objectId === 'string') {
    return { __type: 'File', id: v.objectId };
  }
  return v;
}

function defaultAcl(className: string, objectId: string): Acl {
  // The ACL a user gets at sign-up (src/users/user-acl.ts): public read, self write.
  return className === '_User' ? { '*': { read: true }, [objectId]: { read: true, write: true } } : PUBLIC_ACL;
}

/**
 * Validates one record and builds its row. Throws RecordError for a record that cannot be
 * imported: not an object, a missing or bad objectId, a bad date, ACL, field name or value.
 * A missing createdAt takes updatedAt and vice versa; with neither, `now` is used.
 */
export function prepareRow(className: string, raw: unknown, now: string): PreparedRow {
  if (!isPlainObject(raw)) throw new RecordError('a record must be a JSON object');
  const { objectId } = raw;
  if (typeof objectId !== 'string' || !isValidObjectId(objectId)) {
    throw new RecordError(`bad objectId ${JSON.stringify(objectId ?? null).slice(0, 80)}: expected 1 to 64 letters and digits`);
  }
  const created = timestamp(raw, 'createdAt');
  const updated = timestamp(raw, 'updatedAt');
  const createdAt = created ?? updated ?? now;
  const updatedAt = updated ?? created ?? now;
  let acl: Acl;
  try {
    acl = raw.ACL === undefined || raw.ACL === null ? defaultAcl(className, objectId) : parseAcl(raw.ACL);
  } catch (err) {
    throw new RecordError(message(err));
  }
  const data: Record<string, unknown> = {};
  const types: Record<string, FieldSchema> = {};
  const dropped: DroppedField[] = [];
  const unsupported = Object.hasOwn(UNSUPPORTED, className) ? UNSUPPORTED[className] : {};
  for (const [key, value] of Object.entries(raw)) {
    if (COLUMNS.has(key) || WIRE_ONLY.has(key) || value === undefined) continue;
    if (Object.hasOwn(unsupported, key)) {
      dropped.push({ field: key, reason: unsupported[key] });
      continue;
    }
    try {
      checkFieldName(key);
      const stored = decodeValue(fileFromPointer(value), key);
      data[key] = stored;
      const type = fieldTypeOf(stored);
      if (type) types[key] = type;
    } catch (err) {
      throw new RecordError(message(err));
    }
  }
  const { rperm, wperm } = permsOf(acl);
  return { objectId, createdAt, updatedAt, acl, rperm, wperm, data, types, dropped };
}
