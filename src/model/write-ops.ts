/**
 * The typed form of a create/update body. `parseWriteBody` turns request JSON into these once, at
 * the edge; everything after it (type lock, create, update SQL) works on validated data only.
 * Values inside ops are already in stored form (see decode-value.ts).
 */
import type { Acl } from './acl.ts';

/** A field path: `['score']` for a top-level field, `['stats', 'score']` for `stats.score`. */
export type FieldPath = readonly [string, ...string[]];

/** Sets the field to a value (stored form; may be null). */
export interface SetOp {
  readonly kind: 'set';
  readonly path: FieldPath;
  readonly value: unknown;
}

/** Removes the field (`{__op: "Delete"}`). */
export interface DeleteOp {
  readonly kind: 'delete';
  readonly path: FieldPath;
}

/** Atomic add; Decrement arrives here with a negated amount. */
export interface IncrementOp {
  readonly kind: 'increment';
  readonly path: FieldPath;
  readonly amount: number;
}

/** Add / AddUnique / Remove on an array field; `objects` are in stored form. */
export interface ArrayOp {
  readonly kind: 'add' | 'addUnique' | 'remove';
  readonly path: FieldPath;
  readonly objects: readonly unknown[];
}

/** BitAnd / BitOr / BitXor with a safe integer operand. */
export interface BitOp {
  readonly kind: 'bitAnd' | 'bitOr' | 'bitXor';
  readonly path: FieldPath;
  readonly value: number;
}

/**
 * AddRelation / RemoveRelation (or both, from the JS SDK's `{__op:"Batch"}`), on a top-level
 * field. Ids are de-duplicated; `add` and `remove` keep the order the client sent.
 */
export interface RelationOp {
  readonly kind: 'relation';
  readonly path: readonly [string];
  readonly className: string;
  readonly add: readonly string[];
  readonly remove: readonly string[];
}

/** One validated operation on one field path. */
export type WriteOp = SetOp | DeleteOp | IncrementOp | ArrayOp | BitOp | RelationOp;

/** Rows the caller must write to `_larder_relations` for one relation field (owner is the object). */
export interface RelationChange {
  readonly action: 'add' | 'remove';
  /** The relation field on the owner. */
  readonly key: string;
  readonly targetClass: string;
  readonly targetIds: readonly string[];
}

/**
 * Body keys that SDKs send as request flags, not data. They are returned to the caller (hooks,
 * batch/save) and never stored.
 */
export const WRITE_FLAG_KEYS = ['__ignore_hooks', '__internalId', '__children', '__before', '__after'] as const;

/** Name of one request flag carried in a write body. */
export type WriteFlagKey = (typeof WRITE_FLAG_KEYS)[number];

/** A parsed write body: field ops, the ACL if one was sent, and the SDK flags. */
export interface ParsedWrite {
  readonly ops: readonly WriteOp[];
  /** Present when the body had an `ACL` key; already validated and normalised. */
  readonly acl?: Acl;
  readonly flags: Partial<Record<WriteFlagKey, unknown>>;
}

/** Whether create or update rules apply (dotted keys are update-only). */
export type WriteMode = 'create' | 'update';

/** The top-level field an op writes. */
export function topField(op: WriteOp): string {
  return op.path[0];
}
