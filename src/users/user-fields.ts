/**
 * The `_User` fields with rules of their own, split out of a sign-up or update body before the
 * rest goes through the generic write parser. Pure: validation only.
 *
 * Server-managed fields: clients never write `sessionToken`, `salt`, `emailVerified` or
 * `mobilePhoneVerified` (117); the master key may set the two `*Verified` flags (admin tools,
 * imports). `authData` changes only through the link rules (auth-data.ts). `password` is checked
 * here; who may change it is decided by the update use-case.
 */
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { parseAuthData, parseAuthDataChange, type AuthDataChange, type AuthEntry } from './auth-data.ts';
import { MAX_PASSWORD_LENGTH } from './password.ts';
import { isValidEmail, isValidMobilePhone } from '../model/contact.ts';

/** Fields no client writes; the master key may write the ones in MASTER_WRITABLE. */
export const SERVER_MANAGED: readonly string[] = ['sessionToken', 'salt', 'emailVerified', 'mobilePhoneVerified'];
const MASTER_WRITABLE: readonly string[] = ['emailVerified', 'mobilePhoneVerified'];
/** Fields handled here rather than by the generic parser (also refused with dotted paths). */
const SPECIAL: readonly string[] = ['username', 'password', 'email', 'mobilePhoneNumber', 'authData', ...SERVER_MANAGED];

/** Longest username, email or phone number: indexed values stay small. */
export const MAX_USERNAME_LENGTH = 256;

/** A body split into the special user fields and the generic rest. */
export interface UserBody {
  /** Everything else (incl. ACL), for parseWriteBody. */
  readonly rest: Record<string, unknown>;
  readonly username?: string;
  readonly password?: string;
  /** null: remove the field (update only). */
  readonly email?: string | null;
  readonly mobilePhoneNumber?: string | null;
  /** Sign-up: the whole authData. */
  readonly authData?: readonly AuthEntry[];
  /** Update: platforms to link and unlink. */
  readonly authDataChange?: AuthDataChange;
  /** Master-key writes of server-managed flags. */
  readonly verifiedFlags: Readonly<Record<string, boolean | null>>;
}

/** How a body is being written. */
export interface UserBodyMode {
  readonly mode: 'create' | 'update';
  readonly master: boolean;
}

function isDelete(v: unknown): boolean {
  return isPlainObject(v) && v.__op === 'Delete' && Object.keys(v).length === 1;
}

function username(v: unknown, mode: UserBodyMode['mode']): string {
  if ((v === '' || v === null) && mode === 'create') throw new ApiError('usernameMissing');
  if (typeof v !== 'string' || v.trim() === '' || v.length > MAX_USERNAME_LENGTH) throw new ApiError('invalidUsername');
  return v;
}

/** Validates a new password: a non-blank string of bounded length (201 when empty on sign-up, else 218). */
export function checkPassword(v: unknown, mode: UserBodyMode['mode'] = 'update'): string {
  if ((v === '' || v === null) && mode === 'create') throw new ApiError('passwordMissing');
  if (typeof v !== 'string' || v.trim() === '') throw new ApiError('invalidPassword');
  if (v.length > MAX_PASSWORD_LENGTH) throw new ApiError('invalidPassword', `Invalid password: at most ${MAX_PASSWORD_LENGTH} characters.`);
  return v;
}

function optionalText(v: unknown, mode: UserBodyMode['mode'], valid: (s: string) => boolean, error: 'invalidEmail' | 'invalidMobilePhone'): string | null | undefined {
  if (v === null || isDelete(v)) return mode === 'create' ? undefined : null;
  if (typeof v !== 'string' || !valid(v)) throw new ApiError(error);
  return v;
}

function readOnly(key: string): ApiError {
  return new ApiError('readOnlyKey', `The key '${key}' is managed by the server and cannot be written by clients.`);
}

/**
 * Splits a sign-up or update body. Errors: 107 (not an object), 217/218 (bad username or
 * password), 125/127 (bad email or phone), 117 (server-managed field), 105 (dotted path into a
 * special field), 250/251/400 (authData).
 */
export function splitUserBody(body: unknown, how: UserBodyMode): UserBody {
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  // Null-prototype maps: a `__proto__` key stays a key (refused later) instead of a prototype.
  const rest: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const dottedAuth: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const verifiedFlags: Record<string, boolean | null> = {};
  let wholeAuth: unknown;
  const out: { -readonly [K in keyof UserBody]?: UserBody[K] } = {};
  for (const [key, value] of Object.entries(body)) {
    const dot = key.indexOf('.');
    const head = dot < 0 ? key : key.slice(0, dot);
    if (dot >= 0 && head === 'authData' && how.mode === 'update') {
      dottedAuth[key.slice(dot + 1)] = value;
      continue;
    }
    if (!SPECIAL.includes(head)) {
      rest[key] = value;
      continue;
    }
    if (dot >= 0) {
      if (SERVER_MANAGED.includes(head) || head === 'password') throw readOnly(key);
      throw new ApiError('invalidKeyName', `Invalid key name ${JSON.stringify(key.slice(0, 200))}: '${head}' can only be written as a whole.`);
    }
    switch (key) {
      case 'username':
        out.username = username(value, how.mode);
        break;
      case 'password':
        out.password = checkPassword(value, how.mode);
        break;
      case 'email':
        out.email = optionalText(value, how.mode, isValidEmail, 'invalidEmail');
        break;
      case 'mobilePhoneNumber':
        out.mobilePhoneNumber = optionalText(value, how.mode, isValidMobilePhone, 'invalidMobilePhone');
        break;
      case 'authData':
        if (how.mode === 'create') out.authData = parseAuthData(value);
        else wholeAuth = value;
        break;
      default:
        if (!how.master || !MASTER_WRITABLE.includes(key)) throw readOnly(key);
        if (value !== null && typeof value !== 'boolean') throw new ApiError('incorrectType', `'${key}' must be a boolean.`);
        verifiedFlags[key] = value;
    }
  }
  if (how.mode === 'update' && (wholeAuth !== undefined || Object.keys(dottedAuth).length)) {
    out.authDataChange = parseAuthDataChange(wholeAuth, dottedAuth);
  }
  return { ...out, rest, verifiedFlags };
}
