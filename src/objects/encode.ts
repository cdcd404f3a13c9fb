import { hiddenFieldsFor } from '../schema/hidden-fields.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import type { ObjectRow } from './object-row.ts';
import { addRelationMarkers } from './relation-fields.ts';
import { toIso } from './timestamps.ts';

/** A row read without its ACL. */
export type DocumentRow = Pick<ObjectRow, 'objectId' | 'createdAt' | 'updatedAt' | 'data'>;

/** A JSON object as sent to clients. */
export type WireObject = Record<string, unknown>;

/** Options for encoding one row. */
export interface EncodeOptions {
  className: string;
  /** Include the ACL (returnACL with the app option on, or master-key reads of a single object). */
  withAcl: boolean;
  /** Read with the master key: it also sees `authData` (schema/hidden-fields.ts). */
  master?: boolean;
  /** Further fields to drop (client-invisible ones, chosen by the planner: plan/field-policy.ts). */
  drop?: readonly string[];
  /** The class's schema: its Relation fields show their marker on every object (relation-fields.ts). */
  schema?: ClassSchema;
}

/**
 * Encodes a stored row to its wire form: the document's fields plus objectId and createdAt /
 * updatedAt as plain ISO strings (not Date objects, as LeanCloud does), minus hidden fields.
 */
export function encodeRow(row: ObjectRow, opts: EncodeOptions): WireObject {
  return encodeInto({ ...row.data }, row, opts);
}

/**
 * encodeRow for a row the caller has just read and will not use again: the document object
 * itself becomes the wire object instead of a copy (same keys, same order). Pages of a query
 * are encoded this way; copying every document cost about 8% of a worker's CPU with include.
 */
export function encodeOwnedRow(row: ObjectRow, opts: EncodeOptions): WireObject {
  return encodeInto(row.data, row, opts);
}

/** Completes `out` (the row's document or a copy of it) to the wire form. */
function encodeInto(out: WireObject, row: ObjectRow, opts: EncodeOptions): WireObject {
  for (const h of hiddenFieldsFor(opts.className, opts.master === true)) delete out[h];
  if (opts.drop) for (const f of opts.drop) delete out[f];
  out.objectId = row.objectId;
  out.createdAt = toIso(row.createdAt);
  out.updatedAt = toIso(row.updatedAt);
  if (opts.schema) addRelationMarkers(out, opts.schema);
  if (opts.withAcl) out.ACL = row.acl ?? { '*': { read: true, write: true } };
  return out;
}

/**
 * The wire form of an object that include puts in place of its pointer: `__type: "Pointer"` and
 * `className` first, then what encodeRow gives (same keys, same order, same values as spreading
 * encodeRow's object after those two). Built by copying the fields that are shown instead of
 * deleting the hidden ones from the parsed document: a delete turns an object into a slow
 * dictionary, which the copy, every later walk and JSON.stringify paid for (every included user
 * has a password and a session token). Never shows the ACL, as include never does.
 */
export function encodeIncluded(row: DocumentRow, opts: Omit<EncodeOptions, 'withAcl'>): WireObject {
  const hidden = hiddenFieldsFor(opts.className, opts.master === true);
  const drop = opts.drop;
  const out: WireObject = { __type: 'Pointer', className: opts.className };
  const data = row.data;
  for (const k in data) {
    if (!Object.hasOwn(data, k) || hidden.includes(k) || (drop && drop.includes(k))) continue;
    // A plain assignment of `__proto__` would set the prototype; spreading defines the key.
    if (k === '__proto__') Object.defineProperty(out, k, { value: data[k], enumerable: true, writable: true, configurable: true });
    else out[k] = data[k];
  }
  out.objectId = row.objectId;
  out.createdAt = toIso(row.createdAt);
  out.updatedAt = toIso(row.updatedAt);
  if (opts.schema) addRelationMarkers(out, opts.schema);
  return out;
}
