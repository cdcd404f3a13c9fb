/**
 * Object ACLs: `{"*": {read, write}, "<userId>": {...}, "role:<name>": {...}}`. Stored twice: the
 * normalised ACL (returned with returnACL) and the rperm/wperm arrays that SQL filters on
 * (`rperm && $readers`), so no ACL is ever checked by loading rows into JS.
 */
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject, PROTOTYPE_KEYS } from './plain-object.ts';

/** Permissions granted to one ACL subject; only `true` flags are kept. */
export interface AclEntry {
  readonly read?: true;
  readonly write?: true;
}

/** A validated ACL, keyed by `*`, a user objectId or `role:<name>`. */
export type Acl = Readonly<Record<string, AclEntry>>;

/** The permission arrays stored next to the ACL. */
export interface Perms {
  readonly rperm: string[];
  readonly wperm: string[];
}

/** LeanCloud's initial default ACL for every class: public read and write. */
export const DEFAULT_ACL: Acl = Object.freeze({ '*': Object.freeze({ read: true, write: true }) });

/** Longest ACL key accepted (user ids are 24 chars; role names are short). */
export const MAX_ACL_KEY_LENGTH = 128;

/** Most subjects one ACL may name; more is a hostile or broken client, not a real ACL. */
export const MAX_ACL_ENTRIES = 1000;

// User ids are letters and digits (code 104 rule), but imported data keeps foreign ids, so any
// id without the characters that would make it ambiguous with '*' or 'role:' is accepted.
const USER_KEY = /^[A-Za-z0-9_\-]+$/;
// Role names: letters, digits, underscore, plus '-' and space from older LeanCloud docs.
const ROLE_KEY = /^role:[A-Za-z0-9_\- ]+$/;

function invalid(detail: string): ApiError {
  return new ApiError('invalidAcl', `Invalid ACL: ${detail}.`);
}

function checkKey(key: string): void {
  if (key.length === 0 || key.length > MAX_ACL_KEY_LENGTH || PROTOTYPE_KEYS.has(key)) {
    throw invalid(`bad key ${JSON.stringify(key.slice(0, MAX_ACL_KEY_LENGTH))}`);
  }
  if (key !== '*' && !ROLE_KEY.test(key) && !USER_KEY.test(key)) {
    throw invalid(`bad key ${JSON.stringify(key)}; expected "*", a user objectId or "role:<name>"`);
  }
}

function parseEntry(key: string, value: unknown): AclEntry {
  if (!isPlainObject(value)) throw invalid(`the value of ${JSON.stringify(key)} must be an object`);
  let read = false;
  let write = false;
  for (const [flag, granted] of Object.entries(value)) {
    if (flag !== 'read' && flag !== 'write') {
      throw invalid(`unknown permission ${JSON.stringify(flag)} for ${JSON.stringify(key)}`);
    }
    if (typeof granted !== 'boolean') {
      throw invalid(`${JSON.stringify(key)}.${flag} must be a boolean`);
    }
    if (flag === 'read') read = granted;
    else write = granted;
  }
  // SDKs write explicit `false`; dropping it keeps stored ACLs in one canonical form.
  if (read && write) return { read: true, write: true };
  if (read) return { read: true };
  if (write) return { write: true };
  return {};
}

/**
 * Validates a client ACL (error 123 on any deviation) and normalises it: false flags and subjects
 * left with no permission are dropped. An empty ACL is valid and means "master key only".
 */
export function parseAcl(value: unknown): Acl {
  if (!isPlainObject(value)) throw invalid('expected an object');
  const keys = Object.keys(value);
  if (keys.length > MAX_ACL_ENTRIES) throw invalid(`more than ${MAX_ACL_ENTRIES} entries`);
  const out: Record<string, AclEntry> = {};
  for (const key of keys) {
    checkKey(key);
    const entry = parseEntry(key, value[key]);
    if (entry.read || entry.write) out[key] = entry;
  }
  return out;
}

/** The rperm/wperm arrays for an ACL, sorted so equal ACLs give equal rows. */
export function permsOf(acl: Acl): Perms {
  const rperm: string[] = [];
  const wperm: string[] = [];
  for (const [key, entry] of Object.entries(acl)) {
    if (entry.read) rperm.push(key);
    if (entry.write) wperm.push(key);
  }
  return { rperm: rperm.sort(), wperm: wperm.sort() };
}
