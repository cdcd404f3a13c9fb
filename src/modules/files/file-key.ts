import { createHash, randomInt } from 'node:crypto';

/** The characters of random ids (and so of local blob locations and their shard directories). */
export const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string of letters and digits (about 5.95 bits each). */
export function randomId(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Longest key accepted. */
export const MAX_KEY_LENGTH = 1024;
const SEGMENT = /^[A-Za-z0-9._-]{1,255}$/;

/**
 * True for a key that is safe as a URL path and an object key: '/'-separated segments of
 * letters, digits, '.', '_' and '-', none of them '.' or '..' (no traversal, no encoding tricks).
 * Keys never become local paths (blobs are named by random ids), this keeps URLs unambiguous.
 */
export function isValidKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  const segments = key.split('/');
  if (segments.length > 16) return false;
  return segments.every((s) => SEGMENT.test(s) && s !== '.' && s !== '..');
}

/** The extension of a name, lower-case letters and digits only, or ''. */
export function safeExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return '';
  const ext = name.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : '';
}

/** A name reduced to key-safe characters (keep_file_name keys). */
export function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(-200);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

/** What decides a new file's key. */
export interface KeyChoice {
  name: string;
  /** A key the caller chose (master key only; checked by the caller). */
  key?: string;
  /** A folder to put the generated key under. */
  prefix?: string;
  /** Keep the original name at the end of the key (LeanCloud's keep_file_name). */
  keepFileName?: boolean;
}

/**
 * The key of a new file: the caller's own, else `[prefix/]<random>.<ext>` or, with
 * keep_file_name, `[prefix/]<random>/<name>`; the random part (24 letters, ~143 bits) makes
 * generated keys unguessable, so a file's URL works as its capability.
 */
export function newKey(c: KeyChoice): string {
  if (c.key !== undefined) return c.key;
  const head = c.prefix ? `${c.prefix}/` : '';
  if (c.keepFileName) return `${head}${randomId(24)}/${safeName(c.name)}`;
  const ext = safeExtension(c.name);
  return `${head}${randomId(24)}${ext ? `.${ext}` : ''}`;
}

/** A new upload token: 43 characters, base62 (~256 bits). */
export function newUploadToken(): string {
  return randomId(43);
}

/** What is stored of a token: its sha256, so that a database leak leaks no usable token. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
