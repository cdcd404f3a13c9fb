import type { WireObject } from './encode.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** A parsed `keys` parameter: which paths to keep and which to drop. */
export interface KeySelection {
  include: string[][];
  exclude: string[][];
}

const ALWAYS = ['objectId', 'createdAt', 'updatedAt'];

/** Parses `keys` ("a,b.c,-d"); undefined or empty selects everything. */
export function parseKeys(keys: string | undefined): KeySelection | undefined {
  if (!keys) return undefined;
  const include: string[][] = [];
  const exclude: string[][] = [];
  for (const raw of keys.split(',')) {
    const k = raw.trim();
    if (!k) continue;
    if (k.startsWith('-')) exclude.push(k.slice(1).split('.'));
    else include.push(k.split('.'));
  }
  if (!include.length && !exclude.length) return undefined;
  return { include, exclude };
}

function pick(obj: Record<string, unknown>, paths: string[][], top: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (top) for (const k of ALWAYS) if (Object.hasOwn(obj, k)) out[k] = obj[k];
  const nested = new Map<string, string[][]>();
  for (const p of paths) {
    const [head, ...rest] = p;
    // Own keys only: a field named `toString` or `constructor` is data, not a prototype member.
    if (!Object.hasOwn(obj, head)) continue;
    if (rest.length === 0) {
      out[head] = obj[head];
      nested.delete(head);
      continue;
    }
    if (Object.hasOwn(out, head) && !nested.has(head)) continue; // already whole
    const list = nested.get(head) ?? [];
    list.push(rest);
    nested.set(head, list);
  }
  for (const [head, rest] of nested) {
    const v = obj[head];
    if (isPlainObject(v)) {
      const inner = pick(v, rest, false);
      // Keep what identifies a pointer or typed value, so SDKs can still decode it.
      for (const k of ['__type', 'className', 'objectId']) if (Object.hasOwn(v, k)) inner[k] = v[k];
      out[head] = inner;
    } else {
      out[head] = v;
    }
  }
  return out;
}

function drop(obj: Record<string, unknown>, path: string[]): void {
  const [head, ...rest] = path;
  if (!Object.hasOwn(obj, head)) return;
  if (!rest.length) {
    delete obj[head];
    return;
  }
  const v = obj[head];
  if (isPlainObject(v)) {
    const copy = { ...v };
    drop(copy, rest);
    obj[head] = copy;
  }
}

/** Applies a key selection to one encoded object (objectId/createdAt/updatedAt kept unless excluded). */
export function projectKeys(obj: WireObject, sel: KeySelection | undefined): WireObject {
  if (!sel) return obj;
  const out = sel.include.length ? pick(obj, sel.include, true) : { ...obj };
  for (const p of sel.exclude) drop(out, p);
  return out;
}
