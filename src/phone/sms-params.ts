/**
 * Parsing of the SMS endpoints' bodies (leancloud-behaviour §2.4). Numbers are
 * `+<country code><digits>` or bare digits, no spaces or dashes (127); only strings are ever
 * looked up, so `{"$ne": ""}` and friends are a 127, never a query.
 */
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { isValidMobilePhone } from '../model/contact.ts';
import { SMS_TTL_DEFAULT_MINUTES, SMS_TTL_MAX_MINUTES, SMS_TTL_MIN_MINUTES } from '../sms/sms-codes.ts';

/** A body as an object (107 otherwise); a missing body is an empty one. */
export function bodyOf(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  return body;
}

/** The mobilePhoneNumber of a body: 212 when missing, 127 when not a valid number. */
export function phoneOf(body: Record<string, unknown>): string {
  const v = body.mobilePhoneNumber;
  if (v === undefined || v === null || v === '') throw new ApiError('mobilePhoneMissing');
  if (typeof v !== 'string' || !isValidMobilePhone(v)) throw new ApiError('invalidMobilePhone');
  return v;
}

/** The mobilePhoneNumber of a body when given (127 when given but invalid). */
export function optionalPhoneOf(body: Record<string, unknown>): string | undefined {
  const v = body.mobilePhoneNumber;
  if (v === undefined || v === null || v === '') return undefined;
  return phoneOf(body);
}

/** An SMS code from a path segment or a body field: any string is passed on (a wrong one is 603). */
export function codeOf(v: unknown): string {
  if (typeof v !== 'string' || v === '') throw new ApiError('invalidSmsCode');
  return v;
}

/** Options of requestSmsCode besides the number. */
export interface CodeRequestOptions {
  readonly ttlMinutes: number;
  readonly type: 'sms' | 'voice';
  readonly template?: string;
  readonly sign?: string;
  readonly variables: Readonly<Record<string, string>>;
}

const MAX_VARIABLES = 20;
const MAX_TEXT = 256;
// Parameters with a meaning of their own; the rest are template variables for the sender.
const KNOWN = new Set(['mobilePhoneNumber', 'ttl', 'smsType', 'template', 'sign', 'validate_token']);

function text(key: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length > MAX_TEXT) throw new ApiError('badRequest', `'${key}' must be a string of at most ${MAX_TEXT} characters.`);
  return v;
}

/** `ttl` in minutes (default 10, 1 to 30), `smsType`, `template`, `sign` and template variables. */
export function codeRequestOptions(body: Record<string, unknown>): CodeRequestOptions {
  let ttlMinutes = SMS_TTL_DEFAULT_MINUTES;
  if (body.ttl !== undefined && body.ttl !== null) {
    const n = typeof body.ttl === 'string' && /^\d{1,3}$/.test(body.ttl) ? Number(body.ttl) : body.ttl;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < SMS_TTL_MIN_MINUTES || n > SMS_TTL_MAX_MINUTES) {
      throw new ApiError('badRequest', `'ttl' must be a whole number of minutes from ${SMS_TTL_MIN_MINUTES} to ${SMS_TTL_MAX_MINUTES}.`);
    }
    ttlMinutes = n;
  }
  const smsType = body.smsType ?? 'sms';
  if (smsType !== 'sms' && smsType !== 'voice') throw new ApiError('badRequest', "'smsType' must be 'sms' or 'voice'.");
  const variables: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (KNOWN.has(k)) continue;
    if (Object.keys(variables).length >= MAX_VARIABLES) throw new ApiError('badRequest', `At most ${MAX_VARIABLES} template variables.`);
    if (typeof v === 'number' || typeof v === 'boolean') variables[k] = String(v);
    else variables[k] = text(k.slice(0, 64), v) ?? '';
  }
  return { ttlMinutes, type: smsType, template: text('template', body.template), sign: text('sign', body.sign), variables };
}
