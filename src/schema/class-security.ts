/**
 * Class-level permissions (CLP) in LeanCloud's own format (leancloud-behaviour §3.1), and a
 * class's default ACL. Pure: parsing, defaults and the allow decision; the request-facing check
 * is auth/class-permissions.ts. Stored in `_larder_classes.permissions` / `.default_acl`.
 */
import { ApiError } from '../errors/api-error.ts';
import { isValidObjectId } from '../model/object-id.ts';
import { isRoleName } from '../model/role-name.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** The six operations a class permission governs. */
export const CLASS_OPERATIONS = ['get', 'find', 'create', 'update', 'delete', 'add_fields'] as const;

/** One of the six operations. */
export type ClassOperation = (typeof CLASS_OPERATIONS)[number];

/**
 * Who may perform one operation: everyone (`{"*":true}`), any caller with a valid session
 * (`{"onlySignInUsers":true}`), or listed user objectIds and role names (empty lists: nobody
 * but the master key).
 */
export type PermissionRule =
  | { readonly '*': true }
  | { readonly onlySignInUsers: true }
  | { readonly users: readonly string[]; readonly roles: readonly string[] };

/** Permissions of a class: operations not named fall back to the built-in default. */
export type ClassPermissions = Partial<Record<ClassOperation, PermissionRule>>;

/** What the registry caches per class: stored permissions and default ACL (raw ACL JSON). */
export interface ClassSecurity {
  readonly permissions: ClassPermissions;
  readonly defaultAcl: Readonly<Record<string, unknown>> | null;
}

/** Security of a class with nothing configured. */
export const NO_SECURITY: ClassSecurity = Object.freeze({ permissions: Object.freeze({}), defaultAcl: null });

/** Most users or roles one permission may list. */
export const MAX_LISTED = 1000;

const EVERYONE: PermissionRule = Object.freeze({ '*': true });
const NOBODY: PermissionRule = Object.freeze({ users: Object.freeze([]), roles: Object.freeze([]) });

function invalid(detail: string): ApiError {
  return new ApiError('invalidClassPermissions', `Invalid class permissions: ${detail}.`);
}

function names(op: string, key: 'users' | 'roles', v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_LISTED) throw invalid(`${op}.${key} must be an array of at most ${MAX_LISTED} strings`);
  // The same rules as objectIds and role names everywhere else: a listed name that no user id or
  // role could have (e.g. "role:admins", "a b") is a mistake that would silently grant nothing.
  const valid = key === 'users' ? (n: unknown) => typeof n === 'string' && isValidObjectId(n) : isRoleName;
  for (const n of v) {
    if (!valid(n)) throw invalid(`${op}.${key} holds ${JSON.stringify(n)?.slice(0, 64)}, not a ${key === 'users' ? 'user objectId' : 'role name (letters, digits, underscore)'}`);
  }
  return [...new Set(v as string[])];
}

/** Validates one rule in the original format; anything else is refused, never guessed. */
export function parseRule(op: string, v: unknown): PermissionRule {
  if (!isPlainObject(v)) throw invalid(`${op} must be an object such as {"*":true}`);
  const keys = Object.keys(v).sort().join(',');
  if (keys === '*') {
    if (v['*'] !== true) throw invalid(`${op}: "*" must be true`);
    return EVERYONE;
  }
  if (keys === 'onlySignInUsers') {
    if (v.onlySignInUsers !== true) throw invalid(`${op}: "onlySignInUsers" must be true`);
    return { onlySignInUsers: true };
  }
  if (keys === 'roles' || keys === 'users' || keys === 'roles,users') {
    return { users: names(op, 'users', v.users), roles: names(op, 'roles', v.roles) };
  }
  throw invalid(`${op} must be one of {"*":true}, {"onlySignInUsers":true} or {"users":[...],"roles":[...]}`);
}

/** Validates a permissions object (a subset of the six operations). */
export function parsePermissions(v: unknown): ClassPermissions {
  if (!isPlainObject(v)) throw invalid('expected an object keyed by get, find, create, update, delete, add_fields');
  const out: ClassPermissions = {};
  for (const [op, rule] of Object.entries(v)) {
    if (!(CLASS_OPERATIONS as readonly string[]).includes(op)) throw invalid(`unknown operation ${JSON.stringify(op.slice(0, 64))}; expected one of ${CLASS_OPERATIONS.join(', ')}`);
    out[op as ClassOperation] = parseRule(op, rule);
  }
  return out;
}

/**
 * Reads a stored permissions value. Null means nothing configured. A stored rule that no longer
 * parses (a hand-edited row, a rule from a stricter future version) fails closed: that operation
 * is for the master key only, never silently opened to everyone by falling back to the default.
 */
export function storedPermissions(v: unknown): ClassPermissions {
  if (v === null || v === undefined) return {};
  const out: ClassPermissions = {};
  if (!isPlainObject(v)) {
    for (const op of CLASS_OPERATIONS) out[op] = NOBODY;
    return out;
  }
  for (const op of CLASS_OPERATIONS) {
    if (!Object.hasOwn(v, op)) continue;
    try {
      out[op] = parseRule(op, v[op]);
    } catch {
      out[op] = NOBODY;
    }
  }
  return out;
}

/**
 * The rule when none is stored: everyone, except that `_User` queries are for the master key
 * only (LeanCloud's default for new apps, leancloud-behaviour §3.3).
 */
export function defaultRule(className: string, op: ClassOperation): PermissionRule {
  if (className === '_User' && op === 'find') return NOBODY;
  // Friendship rows are written only by the friendship endpoints (docs/friendships.md): a client
  // creating `_Followee {friendStatus: true}` itself would forge a friendship.
  if (Object.hasOwn(FRIENDSHIP_WRITES, className) && FRIENDSHIP_WRITES[className].includes(op)) return NOBODY;
  return EVERYONE;
}

/** Operations on friendship classes that only the friendship endpoints (or the master key) perform. */
const FRIENDSHIP_WRITES: Readonly<Record<string, readonly ClassOperation[]>> = {
  _Followee: ['create', 'update', 'delete', 'add_fields'],
  _Follower: ['create', 'update', 'delete', 'add_fields'],
  // delete stays open: the requester withdraws its request (the row's ACL lets only it write).
  _FriendshipRequest: ['create', 'update', 'add_fields'],
};

/** All six rules of a class, defaults filled in (what the admin endpoint shows). */
export function effectivePermissions(className: string, stored: ClassPermissions): Record<ClassOperation, PermissionRule> {
  const out = {} as Record<ClassOperation, PermissionRule>;
  for (const op of CLASS_OPERATIONS) out[op] = stored[op] ?? defaultRule(className, op);
  return out;
}

/** Who is asking, as far as a rule is concerned. */
export interface RuleSubject {
  readonly userId?: string;
  /** ACL principals: '*', the user id, 'role:<name>' for every (inherited) role. */
  readonly readers: readonly string[];
}

/** True when the rule admits the subject. */
export function ruleAllows(rule: PermissionRule, who: RuleSubject): boolean {
  if ('*' in rule) return true;
  if ('onlySignInUsers' in rule) return who.userId !== undefined;
  if (who.userId !== undefined && rule.users.includes(who.userId)) return true;
  return rule.roles.some((r) => who.readers.includes(`role:${r}`));
}

/** True when the rule needs to know who the caller is (everyone-rules do not). */
export function ruleNeedsCaller(rule: PermissionRule): boolean {
  return !('*' in rule);
}
