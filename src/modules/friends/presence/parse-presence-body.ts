/**
 * Parses `POST /friend/v1/rich-presence/users/me` bodies: {config:[{key, value}]}. An empty value
 * clears the field. Each §7.4 limit has its own error; only fields declared by base-info are
 * accepted, and a token field's value must name a token ('#...').
 */
import { ApiError } from '../../../module-api/errors.ts';
import type { PresenceField } from './presence-config.ts';
import { bytes, PRESENCE_LIMITS } from './presence-limits.ts';
import { friendsError } from '../friends-errors.ts';

/** Values to set and keys to clear. */
export interface ParsedPresence {
  readonly set: Record<string, string>;
  readonly clear: string[];
}

function invalid(detail: string): ApiError {
  return friendsError('presenceInvalidRequest', `Invalid rich presence request: ${detail}.`);
}

/** Validates the body against the declared fields. */
export function parsePresenceBody(body: unknown, fields: readonly PresenceField[]): ParsedPresence {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the body must be a JSON object {config:[{key, value}]}');
  const config = (body as Record<string, unknown>).config;
  if (!Array.isArray(config) || config.length === 0) throw invalid('config must be a non-empty array of {key, value}');
  if (config.length > PRESENCE_LIMITS.maxFields) throw friendsError('presenceTooManyFields', `Too many rich presence fields: ${config.length} given, at most ${PRESENCE_LIMITS.maxFields}.`);
  const set: Record<string, string> = {};
  const clear: string[] = [];
  const seen = new Set<string>();
  config.forEach((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid(`config[${i}] must be an object {key, value}`);
    const { key, value } = item as Record<string, unknown>;
    if (typeof key !== 'string' || key === '') throw invalid(`config[${i}].key must be a non-empty string`);
    if (bytes(key) > PRESENCE_LIMITS.maxKeyBytes) throw friendsError('presenceKeyTooLong', `Rich presence key too long: config[${i}].key has ${bytes(key)} bytes, at most ${PRESENCE_LIMITS.maxKeyBytes} bytes.`);
    if (typeof value !== 'string') throw invalid(`config[${i}].value must be a string ("" clears the field)`);
    if (bytes(value) > PRESENCE_LIMITS.maxValueBytes) throw friendsError('presenceValueTooLong', `Rich presence value too long: config[${i}].value has ${bytes(value)} bytes, at most ${PRESENCE_LIMITS.maxValueBytes} bytes.`);
    const field = fields.find((f) => f.key === key);
    if (!field) {
      const known = fields.length ? fields.map((f) => f.key).join(', ') : 'none yet';
      throw friendsError('presenceUnknownField', `Rich presence field ${JSON.stringify(key.slice(0, 64))} is not configured (declared fields: ${known}; POST /friend/v2/rich-presence/config/base-info).`);
    }
    if (seen.has(key)) throw invalid(`field ${JSON.stringify(key)} is given twice`);
    seen.add(key);
    if (value === '') {
      clear.push(key);
      return;
    }
    if (field.type === 'token' && (!value.startsWith('#') || value.length < 2)) {
      throw friendsError('presenceInvalidToken', `The value of token field ${JSON.stringify(key)} must start with # (e.g. "#playing"), got ${JSON.stringify(value.slice(0, 64))}.`);
    }
    set[key] = value;
  });
  return { set, clear };
}
