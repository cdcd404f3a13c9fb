/**
 * Which fields of a class a caller may see and name. Two kinds are kept from clients:
 * - hidden fields of system classes (password, salt, sessionToken, authData... of `_User`,
 *   schema/hidden-fields.ts): stored, never sent, never queryable (the master key reads authData);
 * - client-invisible fields (app setting `clientInvisibleFields`, model/invisible-fields.ts):
 *   `email` and `mobilePhoneNumber` of `_User` by default. A user sees its own row's.
 * Neither may be named by a non-master caller in `where` (any depth: `$or`/`$and`, dot paths,
 * inner queries and the key of `$select`) or in `order`: a `$regex` or a sort on them would
 * spell them out one character at a time. Error 102.
 */
import { ApiError } from '../errors/api-error.ts';
import { invisibleOf } from '../model/invisible-fields.ts';
import type { Condition, FieldPath } from '../query/ast.ts';
import { orderFields } from '../query/parse-order.ts';
import { hiddenFields, hiddenFieldsFor } from '../schema/hidden-fields.ts';
import type { Access } from './read-access.ts';

/** What of one class's rows a caller receives. */
export interface FieldView {
  /** Read with the master key (authData is shown; encode.ts). */
  readonly master: boolean;
  /** Client-invisible fields, dropped from every row but the caller's own user row. */
  readonly invisible: readonly string[];
  /** The caller's objectId when the class is `_User` (its own row keeps every field). */
  readonly selfId?: string;
  /** Whether rows can be sent as their stored text (no field to drop; raw-json.ts). */
  readonly textEncodable: boolean;
}

const NONE: readonly string[] = Object.freeze([]);
const MASTER_VIEW: FieldView = Object.freeze({ master: true, invisible: NONE, textEncodable: false });
const MASTER_PLAIN_VIEW: FieldView = Object.freeze({ master: true, invisible: NONE, textEncodable: true });
const PLAIN_VIEW: FieldView = Object.freeze({ master: false, invisible: NONE, textEncodable: true });

/** How rows of `className` are shown to the caller. */
export function fieldView(access: Access, className: string): FieldView {
  const hidden = hiddenFields(className);
  if (access.master) return hidden.length ? MASTER_VIEW : MASTER_PLAIN_VIEW;
  const invisible = invisibleOf(access.invisible, className);
  if (!hidden.length && !invisible.length) return PLAIN_VIEW;
  const selfId = className === '_User' ? access.userId : undefined;
  return { master: false, invisible, selfId, textEncodable: false };
}

/** The invisible fields to drop from the row with this objectId. */
export function droppedFrom(view: FieldView, objectId: string): readonly string[] {
  return view.invisible.length && view.selfId !== objectId ? view.invisible : NONE;
}

/** Hidden fields a reader never receives (for encoders that do not take a view). */
export function hiddenFor(view: FieldView, className: string): readonly string[] {
  return hiddenFieldsFor(className, view.master);
}

/** Fields of a class the caller may not name in where/order (none for the master key). */
function unnameable(access: Access, className: string, extra: readonly string[]): readonly string[] | undefined {
  if (access.master) return undefined;
  const hidden = hiddenFields(className);
  const invisible = invisibleOf(access.invisible, className);
  if (!hidden.length && !invisible.length && !extra.length) return undefined;
  return [...hidden, ...invisible, ...extra];
}

function refuse(className: string, field: string): ApiError {
  return new ApiError('invalidQuery', `Cannot query or sort on '${field}' of ${className}: the field is not visible to clients.`);
}

function checkPath(access: Access, className: string, path: FieldPath, extra: readonly string[]): void {
  const banned = unnameable(access, className, extra);
  if (banned?.includes(path[0])) throw refuse(className, path[0]);
}

/** Refuses an `order` on a field the caller may not see (102). `extra` adds endpoint-specific ones. */
export function checkOrderFields(access: Access, className: string, order: string | undefined, extra: readonly string[] = NONE): void {
  const banned = unnameable(access, className, extra);
  if (!banned || !order) return;
  for (const field of orderFields(order)) if (banned.includes(field)) throw refuse(className, field);
}

/**
 * Refuses a condition naming a field the caller may not see (102): walks `$and`/`$or`, and inner
 * queries with their own class (their where, order and `$select` key). `extra` applies to the
 * outer class only.
 */
export function checkConditionFields(access: Access, className: string, cond: Condition, extra: readonly string[] = NONE): void {
  if (access.master) return;
  switch (cond.kind) {
    case 'and':
    case 'or':
      for (const c of cond.conditions) checkConditionFields(access, className, c, extra);
      return;
    case 'relatedTo':
      return;
    case 'inQuery':
      checkPath(access, className, cond.field, extra);
      checkConditionFields(access, cond.query.className, cond.query.where);
      checkOrderFields(access, cond.query.className, cond.query.order);
      return;
    case 'select':
      checkPath(access, className, cond.field, extra);
      checkPath(access, cond.query.className, cond.key, NONE);
      checkConditionFields(access, cond.query.className, cond.query.where);
      checkOrderFields(access, cond.query.className, cond.query.order);
      return;
    default:
      checkPath(access, className, cond.field, extra);
  }
}
