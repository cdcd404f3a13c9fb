/**
 * Parses a create/update body into typed write ops (see write-ops.ts). Every key and value is
 * validated here, once; the SQL compiler downstream trusts what it gets.
 */
import { ApiError } from '../errors/api-error.ts';
import { parseAcl, type Acl } from '../model/acl.ts';
import { checkText, decodePointer, decodeValue } from './decode-value.ts';
import { MAX_VALUE_DEPTH } from '../model/value-rules.ts';
import { isReservedKey, isValidKeyName, MAX_KEY_LENGTH, nestedSegmentProblem } from '../model/names.ts';
import { isPlainObject } from '../model/plain-object.ts';
import {
  WRITE_FLAG_KEYS,
  type FieldPath,
  type ParsedWrite,
  type RelationOp,
  type WriteFlagKey,
  type WriteMode,
  type WriteOp,
} from '../model/write-ops.ts';

/** Most keys one write body may carry (fields per class are capped at 300 anyway). */
export const MAX_WRITE_KEYS = 500;
/** Most pointers in one AddRelation/RemoveRelation (LeanCloud: 1000, code 128). */
export const MAX_RELATION_OBJECTS = 1000;

/** Validates a top-level field name (error 105): letters, digits, `_`, starting with a letter. */
export function checkFieldName(name: string): void {
  // Compared case-insensitively; `ACL` itself is taken out of the body before this check.
  if (name.startsWith('__') || isReservedKey(name)) {
    throw new ApiError('invalidKeyName', `Invalid key name. The key ${JSON.stringify(name)} is reserved.`);
  }
  if (!isValidKeyName(name)) {
    throw new ApiError('invalidKeyName', `Invalid key name. Keys are case-sensitive and 'a-zA-Z0-9_' are the only valid characters. The column is: ${JSON.stringify(name.slice(0, MAX_KEY_LENGTH))}.`);
  }
}

function parseKey(key: string, mode: WriteMode): FieldPath {
  const [head, ...rest] = key.split('.');
  checkFieldName(head);
  if (rest.length === 0) return [head];
  if (mode === 'create') {
    throw new ApiError('invalidKeyName', `Invalid key name ${JSON.stringify(key)}: dotted keys are only allowed when updating an object.`);
  }
  if (rest.length >= MAX_VALUE_DEPTH) {
    throw new ApiError('invalidKeyName', `Invalid key name: the path ${JSON.stringify(key.slice(0, 200))} is too deep.`);
  }
  for (const seg of rest) {
    if (nestedSegmentProblem(seg, true)) {
      throw new ApiError('invalidKeyName', `Invalid key name ${JSON.stringify(key.slice(0, 200))}: bad path segment ${JSON.stringify(seg.slice(0, MAX_KEY_LENGTH))}.`);
    }
    checkText(seg, head);
  }
  return [head, ...rest];
}

function relationTargets(field: string, objects: unknown): { className: string; ids: string[] } {
  if (!Array.isArray(objects) || objects.length === 0 || objects.length > MAX_RELATION_OBJECTS) {
    throw new ApiError('invalidRelation', `Invalid relation data for '${field}': objects must be an array of 1 to ${MAX_RELATION_OBJECTS} Pointers.`);
  }
  let className: string | undefined;
  const ids = new Set<string>();
  for (const item of objects) {
    if (!isPlainObject(item) || item.__type !== 'Pointer') {
      throw new ApiError('invalidRelation', `Invalid relation data for '${field}': every object must be a Pointer.`);
    }
    const ptr = decodePointer(item, field);
    className ??= ptr.className;
    if (ptr.className !== className) {
      throw new ApiError('invalidRelation', `Invalid relation data for '${field}': all Pointers must have the same className.`);
    }
    ids.add(ptr.objectId);
  }
  return { className: className as string, ids: [...ids] };
}

function relationOp(path: FieldPath, field: string, subOps: readonly Record<string, unknown>[]): RelationOp {
  if (path.length !== 1) {
    throw new ApiError('invalidRelation', `Invalid relation data: relation operations apply to top-level fields only, not '${field}'.`);
  }
  let className: string | undefined;
  const add: string[] = [];
  const remove: string[] = [];
  for (const sub of subOps) {
    const t = relationTargets(field, sub.objects);
    className ??= t.className;
    if (t.className !== className) {
      throw new ApiError('invalidRelation', `Invalid relation data for '${field}': all Pointers must have the same className.`);
    }
    (sub.__op === 'AddRelation' ? add : remove).push(...t.ids);
  }
  return { kind: 'relation', path: [path[0]], className: className as string, add, remove };
}

function parseOp(path: FieldPath, field: string, op: Record<string, unknown>): WriteOp {
  const name = op.__op;
  switch (name) {
    case 'Delete':
      return { kind: 'delete', path };
    case 'Increment':
    case 'Decrement': {
      const { amount } = op;
      if (typeof amount !== 'number' || !Number.isFinite(amount)) {
        throw new ApiError('incorrectType', `${name} on '${field}' needs a finite number as amount.`);
      }
      return { kind: 'increment', path, amount: name === 'Increment' ? amount : -amount };
    }
    case 'Add':
    case 'AddUnique':
    case 'Remove': {
      if (!Array.isArray(op.objects)) throw new ApiError('incorrectType', `${name} on '${field}' needs an array as objects.`);
      const objects = op.objects.map((o) => decodeValue(o, field, true));
      return { kind: name === 'Add' ? 'add' : name === 'AddUnique' ? 'addUnique' : 'remove', path, objects };
    }
    case 'AddRelation':
    case 'RemoveRelation':
      return relationOp(path, field, [op]);
    case 'Batch': {
      // The JS SDK sends {__op:"Batch", ops:[AddRelation, RemoveRelation]} when a relation both
      // gains and loses members in one save; no other combination is accepted.
      const subs = op.ops;
      if (!Array.isArray(subs) || subs.length === 0 || !subs.every((s) => isPlainObject(s) && (s.__op === 'AddRelation' || s.__op === 'RemoveRelation'))) {
        throw new ApiError('incorrectType', `Batch on '${field}' may only combine AddRelation and RemoveRelation operations.`);
      }
      return relationOp(path, field, subs as Record<string, unknown>[]);
    }
    case 'BitAnd':
    case 'BitOr':
    case 'BitXor': {
      const { value } = op;
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw new ApiError('incorrectType', `${name} on '${field}' needs an integer as value.`);
      }
      return { kind: name === 'BitAnd' ? 'bitAnd' : name === 'BitOr' ? 'bitOr' : 'bitXor', path, value };
    }
    default:
      throw new ApiError('incorrectType', `Unknown operation ${JSON.stringify(name).slice(0, 64)} on '${field}'. Supported: Delete, Add, AddUnique, Remove, AddRelation, RemoveRelation, Increment, Decrement, BitAnd, BitOr, BitXor.`);
  }
}

/** Rejects two ops where one path is a prefix of (or equal to) the other: `a` and `a.b`. */
function checkOverlaps(ops: readonly WriteOp[]): void {
  const written = new Set<string>();
  const parents = new Map<string, string>(); // proper prefix -> a written path below it
  for (const op of ops) {
    const key = op.path.join('.'); // segments cannot contain '.', so the join is unambiguous
    let clash = parents.get(key) ?? (written.has(key) ? key : undefined);
    let prefix = op.path[0];
    for (let i = 1; i < op.path.length; prefix += '.' + op.path[i++]) {
      if (clash === undefined && written.has(prefix)) clash = prefix;
      parents.set(prefix, key);
    }
    if (clash !== undefined) {
      throw new ApiError('badRequest', `Conflicting operations on '${clash}' and '${key}': one path contains the other.`);
    }
    written.add(key);
  }
}

/**
 * Parses a create or update body: field ops, plus the `ACL` (validated, error 123) and the SDK
 * flags (`__ignore_hooks`, `__internalId`, ...) returned separately and never stored.
 */
export function parseWriteBody(body: unknown, mode: WriteMode): ParsedWrite {
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  const keys = Object.keys(body);
  if (keys.length > MAX_WRITE_KEYS) {
    throw new ApiError('badRequest', `Too many keys in one write: ${keys.length} (at most ${MAX_WRITE_KEYS}).`);
  }
  const ops: WriteOp[] = [];
  const flags: Partial<Record<WriteFlagKey, unknown>> = {};
  let acl: Acl | undefined;
  for (const key of keys) {
    const value = body[key];
    if (key === 'ACL') {
      acl = parseAcl(value);
    } else if ((WRITE_FLAG_KEYS as readonly string[]).includes(key)) {
      flags[key as WriteFlagKey] = value;
    } else {
      const path = parseKey(key, mode);
      ops.push(isPlainObject(value) && Object.hasOwn(value, '__op')
        ? parseOp(path, key, value)
        : { kind: 'set', path, value: decodeValue(value, key, path.length > 1) });
    }
  }
  checkOverlaps(ops);
  return acl === undefined ? { ops, flags } : { ops, acl, flags };
}
