import { ApiError } from '../errors/api-error.ts';
import { isFieldReference } from '../model/names.ts';
import { droppedFrom, fieldView, selectByIds, type Access } from '../plan/index.ts';
import type { ClassRegistry } from '../schema/class-registry.ts';
import type { Queryable } from '../storage/database.ts';
import { prepared } from '../storage/prepared-statements.ts';
import { encodeIncluded, type DocumentRow, type WireObject } from './encode.ts';
import type { PrefetchedHead } from './page-includes.ts';
import { sql } from '../sql/fragment.ts';

/** The columns include reads of a pointed-to object. */
const INCLUDED_COLUMNS = sql`"objectId", "createdAt", "updatedAt", data`;

/** Most include paths in one request, and most segments in one path. */
export const MAX_INCLUDE_PATHS = 50;
export const MAX_INCLUDE_DEPTH = 8;

/** Parses `include` ("a, b.c"): spaces tolerated, as the original service does. */
export function parseInclude(include: string | undefined): string[][] {
  if (!include) return [];
  const paths = include.split(',').map((s) => s.trim()).filter(Boolean).map((s) => s.split('.'));
  if (paths.length > MAX_INCLUDE_PATHS) throw new ApiError('invalidQuery', `At most ${MAX_INCLUDE_PATHS} include paths are allowed.`);
  for (const p of paths) {
    if (p.length > MAX_INCLUDE_DEPTH) throw new ApiError('invalidQuery', `Include paths may have at most ${MAX_INCLUDE_DEPTH} levels.`);
    if (!p.every(isFieldReference)) throw new ApiError('invalidKeyName', `Invalid include path '${p.join('.').slice(0, 100)}'.`);
  }
  return paths;
}

interface PointerValue {
  __type: 'Pointer';
  className: string;
  objectId: string;
}

function isPointer(v: unknown): v is PointerValue {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return p.__type === 'Pointer' && typeof p.className === 'string' && typeof p.objectId === 'string';
}

/** What include needs to read pointed-to objects. */
export interface IncludeDeps {
  db: Queryable;
  classes: ClassRegistry;
  /**
   * Who reads: included objects obey the same ACL and field policy as the query, and classes
   * whose `get` permission the caller lacks stay pointers.
   */
  access: Access;
}

/**
 * Replaces pointers on the include paths with the objects they point to, in place: one query
 * per (path level, class), never one per object. Pointers to objects the caller cannot read,
 * or to missing objects, stay plain pointers. `prefetched`: objects of the first level already
 * read with the page (page-includes.ts), by head; pointers it did not look for are read here.
 */
export async function resolveIncludes(deps: IncludeDeps, objects: WireObject[], paths: string[][], prefetched?: ReadonlyMap<string, PrefetchedHead>): Promise<void> {
  const byHead = new Map<string, string[][]>();
  for (const [head, ...rest] of paths) {
    const list = byHead.get(head) ?? [];
    if (rest.length) list.push(rest);
    byHead.set(head, list);
  }
  for (const [head, rests] of byHead) {
    const slots: { holder: WireObject | unknown[]; key: string | number; ptr: PointerValue }[] = [];
    for (const obj of objects) {
      const v = Object.hasOwn(obj, head) ? obj[head] : undefined;
      if (isPointer(v)) slots.push({ holder: obj, key: head, ptr: v });
      else if (Array.isArray(v)) v.forEach((item, i) => isPointer(item) && slots.push({ holder: v, key: i, ptr: item }));
    }
    if (!slots.length) continue;
    const fetched = await fetchPointed(deps, slots.map((s) => s.ptr), prefetched?.get(head));
    const resolved = [...fetched.values()];
    if (rests.length && resolved.length) await resolveIncludes(deps, resolved, rests);
    // Each slot gets an object of its own, as before (the first slot the fetched one, the others
    // copies): later steps (files, keys) change objects in place.
    const placed = new Set<WireObject>();
    for (const s of slots) {
      const obj = fetched.get(`${s.ptr.className}/${s.ptr.objectId}`);
      if (!obj) continue;
      const value = placed.has(obj) ? { ...obj } : (placed.add(obj), obj);
      if (Array.isArray(s.holder)) s.holder[s.key as number] = value;
      else s.holder[s.key as string] = value;
    }
  }
}

async function fetchPointed(deps: IncludeDeps, pointers: PointerValue[], prefetched?: PrefetchedHead): Promise<Map<string, WireObject>> {
  const ids = new Map<string, Set<string>>();
  for (const p of pointers) {
    const set = ids.get(p.className) ?? new Set<string>();
    set.add(p.objectId);
    ids.set(p.className, set);
  }
  const out = new Map<string, WireObject>();
  for (const [className, set] of ids) {
    const schema = await deps.classes.find(className, deps.db);
    if (!schema) continue;
    if (!(await deps.access.permits(className, 'get'))) continue;
    // Prepared: the text depends only on the class (ids and readers are parameters), and its
    // plan is the primary key or, on a small table, a scan of it (never a range to estimate).
    // No `acl` column: an included object never shows its ACL.
    const rows = fromPrefetch(prefetched, className, set) ?? (await deps.db.query<DocumentRow>(prepared(selectByIds(deps.access, className, INCLUDED_COLUMNS, [...set]))));
    const view = fieldView(deps.access, className);
    for (const r of rows) out.set(`${className}/${r.objectId}`, encodeIncluded(r, { className, master: view.master, drop: droppedFrom(view, r.objectId), schema }));
  }
  return out;
}

/**
 * The rows of `ids` from what was read with the page, when that statement looked for every one of
 * them (it read them under the same ACL as selectByIds); undefined when it did not.
 */
function fromPrefetch(prefetched: PrefetchedHead | undefined, className: string, ids: ReadonlySet<string>): DocumentRow[] | undefined {
  if (!prefetched || prefetched.className !== className) return undefined;
  const rows: DocumentRow[] = [];
  for (const id of ids) {
    if (!prefetched.considered.has(id)) return undefined;
    const row = prefetched.rows.get(id);
    if (row) rows.push(row);
  }
  return rows;
}
