/**
 * One object as an export line: the API's own encoder (createdAt/updatedAt as plain strings,
 * typed values in REST form, ACL always present), plus the `_User` secrets that a console export
 * carries and the API never returns (leancloud-export-format.md §4).
 */
import { encodeRow } from '../objects/encode.js';
/**
 * Stored fields that an export writes although the API hides them. `password` is what is
 * stored: LeanCloud's base64 SHA-512 with its `salt` for imported users, Larder's
 * `scrypt$...` string for users who signed up here (only Larder's importer reads that one).
 * Larder's own bookkeeping fields (failed logins, mail tokens) are never exported.
 */
const EXPORTED_SECRETS = {
    _User: ['password', 'salt', 'sessionToken', 'authData'],
};
/** Encodes one stored row for the export. */
export function exportRow(row, className) {
    const out = encodeRow(row, { className, withAcl: true });
    // Own keys only: a user class may be named `constructor` or `toString`.
    for (const key of Object.hasOwn(EXPORTED_SECRETS, className) ? EXPORTED_SECRETS[className] : []) {
        const v = row.data[key];
        if (v !== undefined && v !== null)
            out[key] = v;
    }
    return out;
}
//# sourceMappingURL=export-row.js.map