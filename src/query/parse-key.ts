/**
 * Field names in `where`, `order` and `$select.key`. The first segment is a class field and must
 * be letters, digits and underscore (error 105, LeanCloud's key rule). Further segments go into
 * nested objects (`address.city`), whose keys LeanCloud allows to hold other characters, so they
 * are only required to be non-empty and not start with `$`. Prototype-polluting names are never
 * accepted as any segment.
 */
import { ApiError } from '../errors/api-error.ts';
import type { FieldPath } from './ast.ts';
import { MAX_VALUE_DEPTH } from '../model/value-rules.ts';
import { isFieldReference, nestedSegmentProblem } from '../model/names.ts';
import { checkString } from './parse-value.ts';

/** Columns every class table has; they cannot be followed by a dotted path. */
export const RESERVED_FIELDS = ['objectId', 'createdAt', 'updatedAt'] as const;

/** A reserved column name. */
export type ReservedField = (typeof RESERVED_FIELDS)[number];


/** True for objectId, createdAt and updatedAt. */
export function isReservedField(name: string): name is ReservedField {
  return (RESERVED_FIELDS as readonly string[]).includes(name);
}

function badKey(key: string, why: string): never {
  throw new ApiError(
    'invalidKeyName',
    `Invalid key name ${JSON.stringify(key.slice(0, 200))}: ${why}. Keys are case-sensitive and 'a-zA-Z0-9_' are the only valid characters.`,
  );
}

/** Splits and validates a field key; errors are 105 (invalid key) or 102 (ACL is not queryable). */
export function parseFieldKey(key: string): FieldPath {
  checkString(key);
  const segments = key.split('.');
  if (segments.length > MAX_VALUE_DEPTH) badKey(key, `more than ${MAX_VALUE_DEPTH} dotted segments`);
  const [top, ...rest] = segments;
  if (!isFieldReference(top)) badKey(key, 'the field name is empty, __proto__ or has invalid characters');
  for (const segment of rest) {
    const problem = nestedSegmentProblem(segment);
    if (problem) badKey(key, problem);
  }
  if (rest.length > 0 && isReservedField(top)) badKey(key, `${top} has no nested fields`);
  if (top === 'ACL') throw new ApiError('invalidQuery', 'ACL cannot be used in a query.');
  return [top, ...rest];
}
