/**
 * Fields of system classes that are stored but never sent to clients through generic object
 * paths (get, find, include, batch, scan, export of objects to clients).
 */
const HIDDEN = {
    _User: ['password', 'salt', 'sessionToken', 'authData', '_password_hash', '_failed_logins', '_email_verify_token', '_perishable_token'],
};
/** Hidden fields of a class (empty for user classes). */
export function hiddenFields(className) {
    // Own keys only: a class named `constructor` or `toString` is an ordinary user class.
    return Object.hasOwn(HIDDEN, className) ? HIDDEN[className] : [];
}
/**
 * Hidden fields the master key still reads on every path: `authData` (LeanCloud returns it in
 * `_User` queries, and GET of one user already shows it to the master key). Migration tools that
 * read with the master key (`larder sync`, scan) need it to carry platform logins over.
 */
const MASTER_READS = {
    _User: ['authData'],
};
/** Hidden fields of a class for this reader. */
export function hiddenFieldsFor(className, master) {
    const hidden = hiddenFields(className);
    const shown = master && Object.hasOwn(MASTER_READS, className) ? MASTER_READS[className] : undefined;
    return shown ? hidden.filter((f) => !shown.includes(f)) : hidden;
}
//# sourceMappingURL=hidden-fields.js.map