/**
 * Class-level permissions (CLP) in LeanCloud's own format (leancloud-behaviour §3.1), and a
 * class's default ACL. Pure: parsing, defaults and the allow decision; the request-facing check
 * is auth/class-permissions.ts. Stored in `_larder_classes.permissions` / `.default_acl`.
 */
import { ApiError } from '../errors/api-error.js';
import { isValidObjectId } from '../objects/object-id.js';
import { isRoleName } from '../roles/role-name.js';
/** The six operations a class permission governs. */
export const CLASS_OPERATIONS = ['get', 'find', 'create', 'update', 'delete', 'add_fields'];
/** Security of a class with nothing configured. */
export const NO_SECURITY = Object.freeze({ permissions: Object.freeze({}), defaultAcl: null });
/** Most users or roles one permission may list. */
export const MAX_LISTED = 1000;
const EVERYONE = Object.freeze({ '*': true });
const NOBODY = Object.freeze({ users: Object.freeze([]), roles: Object.freeze([]) });
function isPlainObject(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function invalid(detail) {
    return new ApiError('invalidClassPermissions', `Invalid class permissions: ${detail}.`);
}
function names(op, key, v) {
    if (v === undefined)
        return [];
    if (!Array.isArray(v) || v.length > MAX_LISTED)
        throw invalid(`${op}.${key} must be an array of at most ${MAX_LISTED} strings`);
    // The same rules as objectIds and role names everywhere else: a listed name that no user id or
    // role could have (e.g. "role:admins", "a b") is a mistake that would silently grant nothing.
    const valid = key === 'users' ? (n) => typeof n === 'string' && isValidObjectId(n) : isRoleName;
    for (const n of v) {
        if (!valid(n))
            throw invalid(`${op}.${key} holds ${JSON.stringify(n)?.slice(0, 64)}, not a ${key === 'users' ? 'user objectId' : 'role name (letters, digits, underscore)'}`);
    }
    return [...new Set(v)];
}
/** Validates one rule in the original format; anything else is refused, never guessed. */
export function parseRule(op, v) {
    if (!isPlainObject(v))
        throw invalid(`${op} must be an object such as {"*":true}`);
    const keys = Object.keys(v).sort().join(',');
    if (keys === '*') {
        if (v['*'] !== true)
            throw invalid(`${op}: "*" must be true`);
        return EVERYONE;
    }
    if (keys === 'onlySignInUsers') {
        if (v.onlySignInUsers !== true)
            throw invalid(`${op}: "onlySignInUsers" must be true`);
        return { onlySignInUsers: true };
    }
    if (keys === 'roles' || keys === 'users' || keys === 'roles,users') {
        return { users: names(op, 'users', v.users), roles: names(op, 'roles', v.roles) };
    }
    throw invalid(`${op} must be one of {"*":true}, {"onlySignInUsers":true} or {"users":[...],"roles":[...]}`);
}
/** Validates a permissions object (a subset of the six operations). */
export function parsePermissions(v) {
    if (!isPlainObject(v))
        throw invalid('expected an object keyed by get, find, create, update, delete, add_fields');
    const out = {};
    for (const [op, rule] of Object.entries(v)) {
        if (!CLASS_OPERATIONS.includes(op))
            throw invalid(`unknown operation ${JSON.stringify(op.slice(0, 64))}; expected one of ${CLASS_OPERATIONS.join(', ')}`);
        out[op] = parseRule(op, rule);
    }
    return out;
}
/**
 * Reads a stored permissions value. Null means nothing configured. A stored rule that no longer
 * parses (a hand-edited row, a rule from a stricter future version) fails closed: that operation
 * is for the master key only, never silently opened to everyone by falling back to the default.
 */
export function storedPermissions(v) {
    if (v === null || v === undefined)
        return {};
    const out = {};
    if (!isPlainObject(v)) {
        for (const op of CLASS_OPERATIONS)
            out[op] = NOBODY;
        return out;
    }
    for (const op of CLASS_OPERATIONS) {
        if (!Object.hasOwn(v, op))
            continue;
        try {
            out[op] = parseRule(op, v[op]);
        }
        catch {
            out[op] = NOBODY;
        }
    }
    return out;
}
/**
 * The rule when none is stored: everyone, except that `_User` queries are for the master key
 * only (LeanCloud's default for new apps, leancloud-behaviour §3.3).
 */
export function defaultRule(className, op) {
    if (className === '_User' && op === 'find')
        return NOBODY;
    // Friendship rows are written only by the friendship endpoints (docs/friendships.md): a client
    // creating `_Followee {friendStatus: true}` itself would forge a friendship.
    if (Object.hasOwn(FRIENDSHIP_WRITES, className) && FRIENDSHIP_WRITES[className].includes(op))
        return NOBODY;
    return EVERYONE;
}
/** Operations on friendship classes that only the friendship endpoints (or the master key) perform. */
const FRIENDSHIP_WRITES = {
    _Followee: ['create', 'update', 'delete', 'add_fields'],
    _Follower: ['create', 'update', 'delete', 'add_fields'],
    // delete stays open: the requester withdraws its request (the row's ACL lets only it write).
    _FriendshipRequest: ['create', 'update', 'add_fields'],
};
/** All six rules of a class, defaults filled in (what the admin endpoint shows). */
export function effectivePermissions(className, stored) {
    const out = {};
    for (const op of CLASS_OPERATIONS)
        out[op] = stored[op] ?? defaultRule(className, op);
    return out;
}
/** True when the rule admits the subject. */
export function ruleAllows(rule, who) {
    if ('*' in rule)
        return true;
    if ('onlySignInUsers' in rule)
        return who.userId !== undefined;
    if (who.userId !== undefined && rule.users.includes(who.userId))
        return true;
    return rule.roles.some((r) => who.readers.includes(`role:${r}`));
}
/** True when the rule needs to know who the caller is (everyone-rules do not). */
export function ruleNeedsCaller(rule) {
    return !('*' in rule);
}
//# sourceMappingURL=class-security.js.map