/**
 * One object as an export line: the API's own encoder (createdAt/updatedAt as plain strings,
 * typed values in REST form, ACL always present), plus the `_User` secrets that a console export
 * carries and the API never returns (leancloud-export-format.md §4).
 */
import { encodeRow, type WireObject } from '../objects/encode.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import type { ClassSchema } from '../model/class-schema.ts';

/**
 * Stored fields that an export writes although the API hides them. `password` is what is
 * stored: LeanCloud's base64 SHA-512 with its `salt` for imported users, Larder's
 * `scrypt$...` string for users who signed up here (only Larder's importer reads that one).
 * Larder's own bookkeeping fields (failed logins, mail tokens) are never exported.
 */
const EXPORTED_SECRETS: Readonly<Record<string, readonly string[]>> = {
  _User: ['password', 'salt', 'sessionToken', 'authData'],
};

/**
 * Encodes one stored row for the export. With the class schema, Relation fields show their marker
 * on every row, exactly as the API answers for the same object.
 */
export function exportRow(row: ObjectRow, className: string, schema?: ClassSchema): WireObject {
  const out = encodeRow(row, { className, withAcl: true, schema });
  // Own keys only: a user class may be named `constructor` or `toString`.
  for (const key of Object.hasOwn(EXPORTED_SECRETS, className) ? EXPORTED_SECRETS[className] : []) {
    const v = row.data[key];
    if (v !== undefined && v !== null) out[key] = v;
  }
  return out;
}
