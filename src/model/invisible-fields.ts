/**
 * Client-invisible fields (LeanCloud's per-column "invisible to clients" switch, here an app
 * setting keyed by class): fields that requests without the master key neither receive nor may
 * name in `where`, `order` or an inner query's `$select`. By default `email` and
 * `mobilePhoneNumber` of `_User` are invisible, except that a user always sees its own (the
 * planner, src/plan/field-policy.ts, applies that exception). Pure: the shape, its defaults and
 * the parser of a change; enforcement is the planner's.
 */
import { ApiError } from '../errors/api-error.ts';
import { checkClassName, isValidKeyName } from './names.ts';

/** Invisible fields by class name. */
export type InvisibleFields = Readonly<Record<string, readonly string[]>>;

/** What a new app hides: users' contact data. */
export const DEFAULT_INVISIBLE_FIELDS: InvisibleFields = Object.freeze({ _User: Object.freeze(['email', 'mobilePhoneNumber']) });

/** Most classes with invisible fields, and most invisible fields of one class. */
export const MAX_INVISIBLE_CLASSES = 500;
export const MAX_INVISIBLE_PER_CLASS = 100;

// The SDKs need these on every object; hiding them would break clients, not protect data.
const ALWAYS_VISIBLE = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

const NONE: readonly string[] = Object.freeze([]);

/** The invisible fields of one class (an own-property lookup: class names come from clients). */
export function invisibleOf(fields: InvisibleFields, className: string): readonly string[] {
  return Object.hasOwn(fields, className) ? fields[className] : NONE;
}

function invalid(detail: string): ApiError {
  return new ApiError('invalidSetting', `Invalid app setting: clientInvisibleFields${detail}.`);
}

function fieldList(className: string, v: unknown): readonly string[] {
  if (!Array.isArray(v) || v.length > MAX_INVISIBLE_PER_CLASS) throw invalid(`.${className} must be an array of at most ${MAX_INVISIBLE_PER_CLASS} field names`);
  for (const f of v) {
    if (typeof f !== 'string' || !isValidKeyName(f)) throw invalid(`.${className} holds ${JSON.stringify(f)?.slice(0, 64)}, not a field name`);
    if (ALWAYS_VISIBLE.has(f)) throw invalid(`.${className}: ${f} is always visible`);
  }
  return Object.freeze([...new Set(v as string[])]);
}

/**
 * Applies a change to the current setting: each class named replaces its list (`[]` makes every
 * field of it visible, `null` restores the class's default); classes not named keep theirs.
 */
export function changeInvisibleFields(change: unknown, current: InvisibleFields): InvisibleFields {
  if (typeof change !== 'object' || change === null || Array.isArray(change)) throw invalid(' must be an object mapping class names to arrays of field names');
  const out: Record<string, readonly string[]> = { ...current };
  for (const [className, v] of Object.entries(change)) {
    try {
      checkClassName(className);
    } catch {
      throw invalid(`: ${JSON.stringify(className.slice(0, 64))} is not a class name`);
    }
    if (v === null) {
      if (Object.hasOwn(DEFAULT_INVISIBLE_FIELDS, className)) out[className] = DEFAULT_INVISIBLE_FIELDS[className];
      else delete out[className];
    } else {
      out[className] = fieldList(className, v);
    }
  }
  if (Object.keys(out).length > MAX_INVISIBLE_CLASSES) throw invalid(` may name at most ${MAX_INVISIBLE_CLASSES} classes`);
  return Object.freeze(out);
}
