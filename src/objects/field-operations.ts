/**
 * Applies parsed write ops: in JS for a create (the document starts empty), or as ONE SQL
 * expression for an update, `UPDATE ... SET data = <expr>`, so each op reads the committed value
 * under the row lock and concurrent Increments lose nothing. Ops on overlapping paths were
 * rejected by the parser, so every op can read the *original* `data` column: the expression grows
 * linearly with the number of ops instead of nesting reads of reads.
 */
import type { FieldSchema } from '../model/class-schema.ts';
import { join, jsonKey, sql, type Sql } from '../sql/fragment.ts';
import { fieldTypeOf } from './decode-value.ts';
import type { FieldPath, RelationChange, RelationOp, WriteOp } from '../model/write-ops.ts';

/** PostgreSQL functions take at most 100 arguments: 50 key/value pairs per jsonb_build_object. */
const MAX_PAIRS_PER_BUILD = 50;

/** JSON text with object keys sorted: equal under jsonb equality <=> equal text. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const entries = Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The items without repeats (jsonb element equality), first occurrence kept. */
export function dedupeJson(items: readonly unknown[], existing: readonly unknown[] = []): unknown[] {
  const seen = new Set(existing.map(canonicalJson));
  const out: unknown[] = [];
  for (const item of items) {
    const key = canonicalJson(item);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(item);
    }
  }
  return out;
}

function relationMarker(op: RelationOp): { __type: 'Relation'; className: string } {
  return { __type: 'Relation', className: op.className };
}

function relationChanges(op: RelationOp, includeRemovals: boolean): RelationChange[] {
  const out: RelationChange[] = [];
  const base = { key: op.path[0], targetClass: op.className };
  if (op.add.length) out.push({ action: 'add', ...base, targetIds: op.add });
  if (includeRemovals && op.remove.length) out.push({ action: 'remove', ...base, targetIds: op.remove });
  return out;
}

/** What an op leaves in a field that did not exist before (undefined: the field stays absent). */
function valueOnMissing(op: WriteOp): unknown {
  switch (op.kind) {
    case 'set':
      return op.value;
    case 'delete':
      return undefined;
    case 'increment':
      return op.amount;
    case 'bitAnd':
      return 0;
    case 'bitOr':
    case 'bitXor':
      return op.value;
    case 'add':
      return [...op.objects];
    case 'addUnique':
      return dedupeJson(op.objects);
    case 'remove':
      return [];
    case 'relation':
      return relationMarker(op);
  }
}

function setPath(doc: Record<string, unknown>, path: FieldPath, value: unknown): void {
  let node = doc;
  for (const seg of path.slice(0, -1)) {
    const next = node[seg];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[seg] = {};
    node = node[seg] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

/**
 * Applies ops to an empty document, as on create: Increment n gives n, BitAnd gives 0, BitOr and
 * BitXor give the operand, Remove gives [], Delete leaves the field absent. Relation ops store
 * the marker; the rows to insert come back in `relations`.
 */
export function applyOnCreate(ops: readonly WriteOp[]): { data: Record<string, unknown>; relations: RelationChange[] } {
  const data: Record<string, unknown> = {};
  const relations: RelationChange[] = [];
  for (const op of ops) {
    const value = valueOnMissing(op);
    if (value !== undefined) setPath(data, op.path, value);
    if (op.kind === 'relation') relations.push(...relationChanges(op, false));
  }
  return { data, relations };
}

const json = (v: unknown): Sql => sql`${JSON.stringify(v)}::jsonb`;
const pathParam = (path: FieldPath): Sql => sql`${[...path]}::text[]`;

/** The current stored value at a path, read from the row's original `data`. */
function current(path: FieldPath): Sql {
  return path.length === 1 ? sql`data->${jsonKey(path[0])}` : sql`(data #> ${pathParam(path)})`;
}

/** SQL computing the new value of an op that depends on the current one; undefined otherwise. */
function computed(op: WriteOp): Sql | undefined {
  const cur = current(op.path);
  switch (op.kind) {
    case 'increment':
      return sql`to_jsonb(larder_finite(larder_num(${cur}) + ${op.amount}::numeric))`;
    case 'add':
      return sql`(larder_array(${cur}) || ${json(op.objects)})`;
    case 'addUnique':
      return sql`larder_add_unique(${cur}, ${json(dedupeJson(op.objects))})`;
    case 'remove':
      return sql`larder_remove(${cur}, ${json(dedupeJson(op.objects))})`;
    case 'bitAnd':
      return sql`to_jsonb(larder_int(${cur}) & ${op.value}::bigint)`;
    case 'bitOr':
      return sql`to_jsonb(larder_int(${cur}) | ${op.value}::bigint)`;
    case 'bitXor':
      return sql`to_jsonb(larder_int(${cur}) # ${op.value}::bigint)`;
    case 'set':
    case 'delete':
    case 'relation':
      return undefined;
  }
}

/** The fixed value a non-computed op writes (sets, relation markers). */
function staticValue(op: WriteOp): unknown {
  return op.kind === 'relation' ? relationMarker(op) : op.kind === 'set' ? op.value : undefined;
}

function topLevelMerge(ops: readonly WriteOp[]): Sql {
  const deletes: string[] = [];
  const statics: Record<string, unknown> = {};
  let hasStatics = false;
  const pairs: Sql[] = [];
  for (const op of ops) {
    const key = op.path[0];
    const expr = computed(op);
    if (op.kind === 'delete') deletes.push(key);
    else if (expr) pairs.push(sql`${jsonKey(key)}, ${expr}`);
    else {
      statics[key] = staticValue(op); // key passed checkFieldName: never __proto__
      hasStatics = true;
    }
  }
  let base = sql`data`;
  if (deletes.length) base = sql`(data - ${deletes}::text[])`;
  const parts = [base];
  if (hasStatics) parts.push(json(statics));
  for (let i = 0; i < pairs.length; i += MAX_PAIRS_PER_BUILD) {
    parts.push(sql`jsonb_build_object(${join(pairs.slice(i, i + MAX_PAIRS_PER_BUILD), ', ')})`);
  }
  return parts.length === 1 ? base : sql`(${join(parts, ' || ')})`;
}

/**
 * Dotted-path ops, applied by one `larder_patch` call. Values are `jsonb_build_array` chunks
 * joined with `||`, so the expression's depth stays flat however many paths the body has.
 */
function nestedPatch(base: Sql, ops: readonly WriteOp[]): Sql {
  const setPaths: FieldPath[] = [];
  const deletePaths: FieldPath[] = [];
  const values: Sql[] = [];
  for (const op of ops) {
    if (op.kind === 'delete') {
      deletePaths.push(op.path);
    } else {
      setPaths.push(op.path);
      values.push(computed(op) ?? json(staticValue(op)));
    }
  }
  const chunks: Sql[] = [];
  for (let i = 0; i < values.length; i += MAX_PAIRS_PER_BUILD * 2) {
    chunks.push(sql`jsonb_build_array(${join(values.slice(i, i + MAX_PAIRS_PER_BUILD * 2), ', ')})`);
  }
  const valueArray = chunks.length ? join(chunks, ' || ') : sql`'[]'::jsonb`;
  return sql`larder_patch(${base}, ${json(setPaths)}, ${valueArray}, ${json(deletePaths)})`;
}

/**
 * Compiles update ops to one SQL expression for the new `data`, to be used as
 * `UPDATE <table> SET data = <expr> WHERE ...`. Top-level fields are merged with `||`; dotted
 * paths go through `larder_patch` (creates missing parents, see sql-functions.ts); every path
 * and value is a bound parameter. Needs those functions and a NOT NULL `data` column.
 */
export function compileUpdate(ops: readonly WriteOp[]): { data: Sql; relations: RelationChange[] } {
  const top = ops.filter((op) => op.path.length === 1);
  const nested = ops.filter((op) => op.path.length > 1);
  const merged = topLevelMerge(top);
  const data = nested.length ? nestedPatch(merged, nested) : merged;
  const relations = ops.flatMap((op) => (op.kind === 'relation' ? relationChanges(op, true) : []));
  return { data, relations };
}

/**
 * The top-level field types a write implies, for the type lock: a set locks its value's type
 * (null locks none), numeric ops imply Number, array ops Array, relation ops Relation, and a
 * dotted write implies Object for its top-level field. Delete implies nothing.
 */
export function typesOf(ops: readonly WriteOp[]): Record<string, FieldSchema> {
  const out: Record<string, FieldSchema> = {};
  for (const op of ops) {
    const key = op.path[0];
    let type: FieldSchema | undefined;
    if (op.path.length > 1) type = op.kind === 'delete' ? undefined : { type: 'Object' };
    else if (op.kind === 'set') type = fieldTypeOf(op.value);
    else if (op.kind === 'increment' || op.kind === 'bitAnd' || op.kind === 'bitOr' || op.kind === 'bitXor') type = { type: 'Number' };
    else if (op.kind === 'add' || op.kind === 'addUnique' || op.kind === 'remove') type = { type: 'Array' };
    else if (op.kind === 'relation') type = { type: 'Relation', className: op.className };
    if (type) out[key] = type;
  }
  return out;
}

/** Top-level keys the write touches, in body order (fetchWhenSave returns only these). */
export function changedKeys(ops: readonly WriteOp[]): string[] {
  return [...new Set(ops.map((op) => op.path[0]))];
}
