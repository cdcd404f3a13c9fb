/**
 * The `order` parameter: comma-separated keys, `-` for descending. The one parser of it: the
 * compiler (sql/compile-order.ts), the planner's field policy and every endpoint that sorts read
 * it through here, so they can never disagree on which fields an order names.
 */
import { MAX_ORDER_KEYS, tooComplex } from './limits.ts';

/** One parsed order key. */
export interface OrderKey {
  readonly field: string;
  readonly descending: boolean;
}

/** Splits `order` into keys; empty items (`a,,b`) and surrounding spaces are ignored. */
export function parseOrder(order: string | undefined): OrderKey[] {
  if (order === undefined) return [];
  const keys = order
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k) => (k.startsWith('-') ? { field: k.slice(1), descending: true } : { field: k, descending: false }));
  if (keys.length > MAX_ORDER_KEYS) tooComplex('keys in order', MAX_ORDER_KEYS);
  return keys;
}

/** The top-level field each key of `order` sorts on (`-a.b` -> `a`). */
export function orderFields(order: string | undefined): string[] {
  return parseOrder(order).map((k) => k.field.split('.')[0]);
}
