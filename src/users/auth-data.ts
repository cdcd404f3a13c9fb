/**
 * authData (leancloud-behaviour §4.3), parsed once at the edge. Each platform entry yields the
 * uid that binds it to one user (`_larder_auth_bindings`): `id` for `anonymous`, `uid` for
 * generic platforms and `lc_apple`, `openid` for the game-platform form that has no `uid`. An
 * entry with `unionid` + `platform` also names a union binding `_<platform>_unionid`. Every
 * identifying or secret member must be a string: `{"$ne": ...}` or any other non-string is a
 * 400 here, so nothing but a plain string ever reaches a lookup.
 */
import { ApiError } from '../errors/api-error.ts';
import { decodeValue } from '../objects/decode-value.ts';
import { PROTOTYPE_KEYS } from '../model/plain-object.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** The platform key of anonymous users. */
export const ANONYMOUS = 'anonymous';
/** Sign in with Apple, as the SDKs name it. */
export const APPLE = 'lc_apple';

/** Platform names: letters, digits, underscore, starting with a letter (server keys start with `_`). */
const PLATFORM_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Longest uid, openid, unionid or anonymous id. */
export const MAX_UID_LENGTH = 512;
/** Longest token-like member (access_token, identity_token, code, ...). */
const MAX_SECRET_LENGTH = 8192;
/** Most members one platform entry may have. */
const MAX_ENTRY_KEYS = 64;
/** Most platforms one request may name. */
export const MAX_PLATFORMS = 16;

/** Members that identify the account or carry a credential: strings, always. */
const STRING_MEMBERS = ['uid', 'openid', 'unionid', 'id', 'access_token', 'identity_token', 'code', 'kid', 'platform', 'session_key'] as const;

/** A unionid that lets other platforms of one developer find the same user. */
export interface UnionRef {
  /** The union platform (e.g. weixin); the binding key is `_<platform>_unionid`. */
  readonly platform: string;
  readonly unionid: string;
  /** main_account: this login claims the unionid for its user. */
  readonly main: boolean;
}

/** One validated platform entry. */
export interface AuthEntry {
  readonly platform: string;
  readonly uid: string;
  /** The entry as stored in `authData.<platform>`. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly union?: UnionRef;
}

/** A change of authData in an update: platforms to link (merge) and platforms to unlink. */
export interface AuthDataChange {
  readonly link: readonly AuthEntry[];
  readonly unlink: readonly string[];
}

/** The authData key of a union binding. */
export function unionKey(platform: string): string {
  return `_${platform}_unionid`;
}

function bad(message: string): ApiError {
  return new ApiError('badRequest', message);
}

/** True for a platform name (a key under authData); imports use the same rule. */
export function isPlatformName(name: string): boolean {
  return PLATFORM_NAME.test(name) && !PROTOTYPE_KEYS.has(name);
}

/** Validates a platform name (the key under authData). */
export function checkPlatform(name: string): string {
  if (!isPlatformName(name)) {
    throw bad(`Invalid authData platform ${JSON.stringify(name.slice(0, 64))}: letters, digits and underscore, starting with a letter.`);
  }
  return name;
}

function stringMember(platform: string, entry: Record<string, unknown>, key: string, max: number): string | undefined {
  const v = entry[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw bad(`authData.${platform}.${key} must be a string.`);
  if (v.length > max) throw bad(`authData.${platform}.${key} is too long (at most ${max} characters).`);
  return v;
}

function required(platform: string, entry: Record<string, unknown>, key: string): void {
  const v = stringMember(platform, entry, key, MAX_SECRET_LENGTH);
  if (v === undefined || v === '') throw new ApiError('invalidLinkedSession', `authData.${platform}.${key} is required.`);
}

function uidOf(platform: string, entry: Record<string, unknown>): string {
  const key = platform === ANONYMOUS ? 'id' : entry.uid !== undefined ? 'uid' : 'openid';
  const uid = stringMember(platform, entry, key, MAX_UID_LENGTH);
  if (uid === undefined || uid === '') throw new ApiError('linkedIdMissing', `Linked id missing from request: authData.${platform}.${key}.`);
  return uid;
}

function unionOf(platform: string, entry: Record<string, unknown>): UnionRef | undefined {
  const unionid = stringMember(platform, entry, 'unionid', MAX_UID_LENGTH);
  const unionPlatform = stringMember(platform, entry, 'platform', 64);
  const main = entry.main_account;
  if (main !== undefined && typeof main !== 'boolean') throw bad(`authData.${platform}.main_account must be a boolean.`);
  if (!unionid || unionPlatform === undefined) return undefined;
  return { platform: checkPlatform(unionPlatform), unionid, main: main === true };
}

/**
 * Parses one platform entry: shape, string members, the platform's required members (anonymous:
 * `id`; lc_apple: `uid`, `identity_token`, `code`; others: `uid` or `openid`, and `access_token`).
 * A missing id is 250; a missing credential 251.
 */
export function parseAuthEntry(platformName: string, value: unknown): AuthEntry {
  const platform = checkPlatform(platformName);
  if (!isPlainObject(value)) throw bad(`authData.${platform} must be an object.`);
  if (Object.keys(value).length > MAX_ENTRY_KEYS) throw bad(`authData.${platform} has too many members.`);
  for (const key of STRING_MEMBERS) stringMember(platform, value, key, MAX_SECRET_LENGTH);
  const uid = uidOf(platform, value);
  if (platform === APPLE) {
    required(platform, value, 'identity_token');
    required(platform, value, 'code');
  } else if (platform !== ANONYMOUS) {
    required(platform, value, 'access_token');
  }
  const data = decodeValue(value, `authData.${platform}`, true) as Record<string, unknown>;
  const union = unionOf(platform, value);
  return union ? { platform, uid, data, union } : { platform, uid, data };
}

/** Parses a whole `authData` object as sent to sign up or log in: at least one platform. */
export function parseAuthData(value: unknown): AuthEntry[] {
  if (!isPlainObject(value)) throw bad('authData must be an object mapping platform names to objects.');
  const keys = Object.keys(value);
  if (keys.length === 0) throw new ApiError('linkedIdMissing', 'Linked id missing from request: authData is empty.');
  if (keys.length > MAX_PLATFORMS) throw bad(`authData may name at most ${MAX_PLATFORMS} platforms.`);
  return keys.map((k) => parseAuthEntry(k, value[k]));
}

/**
 * Parses the authData part of an update: `authData: {p: {...}}` links (merges per platform; a
 * null value unlinks, as older SDKs did), `authData.p: {...}` links one platform, and
 * `authData.p: {"__op":"Delete"}` or null unlinks it.
 */
export function parseAuthDataChange(whole: unknown, dotted: Readonly<Record<string, unknown>>): AuthDataChange {
  const link: AuthEntry[] = [];
  const unlink: string[] = [];
  const add = (platform: string, v: unknown): void => {
    if (v === null || (isPlainObject(v) && v.__op === 'Delete' && Object.keys(v).length === 1)) unlink.push(checkPlatform(platform));
    else link.push(parseAuthEntry(platform, v));
  };
  if (whole !== undefined) {
    if (!isPlainObject(whole)) throw bad('authData must be an object mapping platform names to objects.');
    for (const [k, v] of Object.entries(whole)) add(k, v);
  }
  for (const [k, v] of Object.entries(dotted)) add(k, v);
  if (link.length + unlink.length > MAX_PLATFORMS) throw bad(`authData may name at most ${MAX_PLATFORMS} platforms.`);
  const seen = new Set<string>();
  for (const p of [...link.map((e) => e.platform), ...unlink]) {
    if (seen.has(p)) throw bad(`authData.${p} is named twice.`);
    seen.add(p);
  }
  return { link, unlink };
}
