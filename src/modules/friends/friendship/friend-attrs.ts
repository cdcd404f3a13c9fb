import { ApiError } from '../../../module-api/errors.ts';
import { isPlainObject, type FieldSchema } from '../../../module-api/data.ts';
import { typesOf, parseWriteBody } from '../../../module-api/writes.ts';

/** Fields the server sets on friendship rows; attributes may not overwrite them. */
const SERVER_FIELDS = new Set(['user', 'followee', 'follower', 'friend', 'friendStatus', 'status', 'blockedUser']);

/** Custom attributes of a friendship (group, remark, score, ...), in stored form. */
export interface FriendAttrs {
  readonly data: Record<string, unknown>;
  readonly types: Record<string, FieldSchema>;
}

/** No attributes. */
export const NO_ATTRS: FriendAttrs = { data: {}, types: {} };

/**
 * Validates custom attributes with the object rules (names, wire types, sizes) and keeps them
 * to plain values: operations (Increment, AddRelation, ...) and ACL have no meaning on a
 * friendship, and the server-set fields would let a client forge one (friendStatus: true).
 */
export function parseFriendAttrs(value: unknown): FriendAttrs {
  if (value === undefined || value === null) return NO_ATTRS;
  if (!isPlainObject(value)) throw new ApiError('invalidJson', 'Friendship attributes must be a JSON object.');
  const parsed = parseWriteBody(value, 'create');
  if (parsed.acl) throw new ApiError('invalidKeyName', 'Friendship rows get their ACL from the friendshipACL setting; ACL cannot be set.');
  const data: Record<string, unknown> = {};
  for (const op of parsed.ops) {
    const key = op.path[0];
    if (SERVER_FIELDS.has(key)) throw new ApiError('readOnlyKey', `The key '${key}' of a friendship is set by the server.`);
    if (op.kind !== 'set') throw new ApiError('invalidJson', `Friendship attribute '${key}' must be a plain value, not an operation.`);
    data[key] = op.value;
  }
  return { data, types: typesOf(parsed.ops) };
}

/**
 * Attributes of a request body: `{friendship: {...}}` (the SDKs' shape), or the attributes
 * themselves at the top level (the follow guide's `{"score": 100}`). `skip` names top-level
 * keys that are not attributes (e.g. `user`, `friend` of a friend request).
 */
export function attrsOfBody(body: unknown, skip: readonly string[] = []): FriendAttrs {
  if (body === undefined || body === null) return NO_ATTRS;
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  if ('friendship' in body) return parseFriendAttrs(body.friendship);
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!skip.includes(k)) rest[k] = v;
  return parseFriendAttrs(rest);
}
