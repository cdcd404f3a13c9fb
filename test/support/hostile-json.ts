// fast-check arbitraries of hostile request JSON, shared by the property-based tests (issue 12):
// keys that are operators, typed-value markers, prototype names and dotted paths, values of
// every JSON type, nested a few levels deep.
import fc from 'fast-check';

/** Keys a hostile client would try. */
export const HOSTILE_KEYS = [
  'a', 'b', 'n', 'a.b', 'a.__proto__', 'objectId', 'createdAt', 'updatedAt', 'ACL', '$or', '$and', '$nor',
  '$regex', '$options', '$in', '$nin', '$all', '$exists', '$ne', '$gt', '$lte', '$select', '$dontSelect',
  '$inQuery', '$notInQuery', '$relatedTo', '$nearSphere', '$within', '$maxDistance', '$where', '$eq',
  '__type', '__op', 'className', 'iso', 'base64', 'latitude', 'longitude', 'where', 'query', 'key',
  'objects', 'amount', 'Pointer', 'Date', 'Bytes', 'GeoPoint', 'File', 'Relation', '__proto__',
  'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', '', ' ', 'é', 'a\u0000b', '_method',
] as const;

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_KEYS),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
);

/** JSON values built from hostile keys (as own properties, like JSON.parse makes them). */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.constantFrom(...HOSTILE_KEYS), tie('value')), { maxLength: 4 })
      // Through JSON text, so that "__proto__" is an own key as in a parsed request body.
      .map((entries) => JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`) as unknown),
  ),
})).value;

/** Runs `work` and says whether it finished or threw only client errors (4xx ApiErrors). */
export function onlyClientErrors(work: () => unknown, isClientError: (err: unknown) => boolean): boolean {
  try {
    work();
    return true;
  } catch (err) {
    if (isClientError(err)) return true;
    throw err;
  }
}

/** Runs counts kept modest so CI stays fast; FAST_CHECK_RUNS raises them for a long local run. */
export const RUNS = Number(process.env.FAST_CHECK_RUNS ?? 300);
