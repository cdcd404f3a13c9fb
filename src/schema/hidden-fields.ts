/**
 * Fields of system classes that are stored but never sent to clients through generic object
 * paths (get, find, include, batch, scan, export of objects to clients).
 */
const HIDDEN: Readonly<Record<string, readonly string[]>> = {
  _User: ['password', 'salt', 'sessionToken', 'authData', '_password_hash', '_failed_logins', '_email_verify_token', '_perishable_token'],
};

/** Hidden fields of a class (empty for user classes). */
export function hiddenFields(className: string): readonly string[] {
  return HIDDEN[className] ?? [];
}
