/**
 * A class query's page and the objects its include paths point to, read in one statement
 * (issue 16): the page as a materialized CTE, then, for each include head that is a Pointer field
 * of the class, the pointed-to rows whose ids the page's documents hold, under the included
 * class's read ACL (plan/plan-rows.ts selectJoinedByIdsOf, selectByIdsOf on the embedded engine).
 * One round trip instead of two per include head; the server sends, and PostgreSQL runs, one
 * statement less.
 *
 * What this reads is only a prefetch: include.ts still decides, per pointer, what is shown. It
 * checks the included class's `get` permission and field policy as before, and uses the
 * prefetched rows only for the ids this statement looked for (`considered`); any other pointer
 * (an array item, another class) is read by its own statement as before.
 */
import { fieldView, selectByIds, selectByIdsOf, selectJoinedByIdsOf, type Access } from '../plan/index.ts';
import { hiddenFieldsFor } from '../schema/hidden-fields.ts';
import type { ClassRegistry } from '../schema/class-registry.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import { ident, isSafeKey, join, jsonKey, sql, type Sql } from '../sql/fragment.ts';
import type { Database, Queryable } from '../storage/database.ts';
import { heavy } from '../storage/heavy-lane.ts';
import { prepared } from '../storage/prepared-statements.ts';
import type { DocumentRow } from './encode.ts';
import type { ObjectRow } from './object-row.ts';
import { headKey, type IncludedCache, type VersionedRow } from './included-cache.ts';
import { boundedColumns, markedPage, MAX_PAGE_ANSWER_BYTES, pageRowsSelect, readBoundedPage, rowFits, type PageQuery, type PageRow } from './page-budget.ts';

/** Most include heads read with the page; further ones get their own statements. */
export const MAX_HEADS_WITH_PAGE = 4;

/** An include head read with the page: a Pointer field of the queried class and its target class. */
export interface HeadWithPage {
  field: string;
  className: string;
  /**
   * Fields of the target class this reader never receives from any of its objects (hidden fields,
   * and client-invisible ones when the reader has no user row of its own): left out of the
   * documents in SQL, so that their text can be spliced into the answer (splice-includes.ts).
   */
  strip: readonly string[];
}

/** The objects read with the page for one include head. */
export interface PrefetchedHead {
  className: string;
  /** The ids the statement looked for: of the page's documents whose field is a Pointer to the class. */
  considered: ReadonlySet<string>;
  /** The rows found among them that the caller may read, by objectId. */
  rows: ReadonlyMap<string, DocumentRow>;
}

/**
 * The include heads that can be read with the page: Pointer fields of the class whose target
 * class exists and which the caller may `get` (a class it may not get is never read at all).
 */
export async function headsWithPage(deps: { db: Queryable; classes: ClassRegistry; access: Access }, schema: ClassSchema, paths: readonly string[][]): Promise<HeadWithPage[]> {
  const out: HeadWithPage[] = [];
  for (const head of new Set(paths.map((p) => p[0]))) {
    if (out.length >= MAX_HEADS_WITH_PAGE) break;
    const field = Object.hasOwn(schema.fields, head) ? schema.fields[head] : undefined;
    if (field?.type !== 'Pointer' || !field.className || !isSafeKey(head)) continue;
    if (!(await deps.classes.find(field.className, deps.db)) || !(await deps.access.permits(field.className, 'get'))) continue;
    out.push({ field: head, className: field.className, strip: strippedFields(deps.access, field.className) });
  }
  return out;
}

/**
 * The fields of `className` no object of it shows this reader. A reader with a user row of its own
 * (`selfId`) sees its own client-invisible fields, so only the hidden ones are left out for it;
 * include drops the rest per object as before (encode.ts encodeIncluded).
 */
function strippedFields(access: Access, className: string): string[] {
  const view = fieldView(access, className);
  const hidden = hiddenFieldsFor(className, view.master);
  return view.selfId === undefined ? [...hidden, ...view.invisible] : [...hidden];
}

/**
 * How the statement reads a head's objects: `text`, each one's version and document
 * (`<xmin>:<ctid> <document>`), or `version`, its version alone, when the head's objects were all
 * known to the cache at their versions last time (included-cache.ts).
 */
export type HeadRead = 'text' | 'version';

/** A row's version: its tuple's transaction and place (included-cache.ts says why that suffices). */
function versionOf(className: string): Sql {
  return sql`${ident(className)}.xmin::text || ':' || ${ident(className)}.ctid::text`;
}

/** The version and document of a head's object, as `<version> <document>` (one text column). */
function versionedText(h: HeadWithPage): Sql {
  // `jsonb - text[]` keeps the other keys in their order: the document as include shows it.
  return sql`${versionOf(h.className)} || ' ' || (data - ${[...h.strip]}::text[])::text`;
}

/** A row of the statement: part 0 is the page (in its order), part i the objects of head i. */
type PartRow = PageRow & { part: number; data_text: string | null };

/**
 * The statement: the page's rows (pageRowsSelect, with each head's pointer as a column), then the
 * pointed-to rows of each head. UNION ALL runs its branches in order and the page's CTE scan
 * keeps the CTE's order, so the page's rows come first and in the query's order.
 */
export function pageWithIncludesStatement(access: Access, q: PageQuery, heads: readonly HeadWithPage[], maxBytes: number = MAX_PAGE_ANSWER_BYTES, engine: Database['engine'] = 'postgres', reads: readonly HeadRead[] = []): Sql {
  // PostgreSQL: the page's distinct ids joined to the class (hashed, or the primary key per id)
  // cost it less than comparing every row of a small class with each id; on the embedded engine
  // the join's hash tables cost more than they save (docs/benchmarks.md, issue 16, "Include's
  // objects by a join").
  const selectOf = engine === 'postgres' ? selectJoinedByIdsOf : selectByIdsOf;
  const pointers = join(heads.map((h, i) => sql`q.data->${jsonKey(h.field)} AS ${pointerColumn(i)}`), ', ');
  const nullAcl = q.acl ? sql`, NULL::jsonb` : sql``;
  const branches = heads.map((h, i) => {
    const col = pointerColumn(i);
    const ids = sql`SELECT p.${col}->>'objectId' FROM page p WHERE p.${col}->>'__type' = 'Pointer' AND p.${col}->>'className' = ${h.className}::text`;
    // Versions only: no document to produce, send or read (the cache has them all).
    const columns =
      reads[i] === 'version'
        ? sql`${i + 1}::int, "objectId", NULL, NULL${nullAcl}, ${versionOf(h.className)}`
        : sql`${i + 1}::int, "objectId", "createdAt", "updatedAt"${nullAcl}, ${versionedText(h)}`;
    return sql`
    UNION ALL
    ${selectOf(access, h.className, columns, ids)}`;
  });
  return heavy(sql`WITH page AS MATERIALIZED (${pageRowsSelect(q, sql`, ${pointers}`)})
    SELECT 0 AS part, b.* FROM (${boundedColumns(q, rowFits(q, maxBytes))} FROM page p) b${join(branches, ' ')}`);
}

function pointerColumn(i: number): Sql {
  // Names of this code base, never request data: `i` is an index below MAX_HEADS_WITH_PAGE.
  return [sql`ptr_0`, sql`ptr_1`, sql`ptr_2`, sql`ptr_3`][i];
}

/** A page and what was read with it for its include heads (empty when the page was re-read). */
export interface PageWithIncludes<R extends PageRow> {
  rows: R[];
  /** The objects of each head, by head field, their documents as text without the stripped fields. */
  heads: ReadonlyMap<string, { className: string; rows: VersionedRow[] }>;
  /** Whether the page was read again by the running-sum statement (nothing was read with it). */
  reread: boolean;
}

/** `<version> <document>` split. */
function versioned(r: PartRow, text: string): VersionedRow {
  const at = text.indexOf(' ');
  return { objectId: r.objectId, createdAt: r.createdAt, updatedAt: r.updatedAt, version: text.slice(0, at), data_text: text.slice(at + 1) };
}

/**
 * Reads a page and its heads' objects in one statement. When a document of the page was over its
 * share of the bound, the page is read again by the running-sum statement (page-budget.ts) and
 * nothing is prefetched.
 *
 * A head whose objects were all in the cache last time reads their versions only, and takes
 * their documents from the cache (included-cache.ts); those it misses (changed since, or never
 * seen) are read by one more statement, under the same read ACL, and the head reads documents
 * again until its statements find them all kept (IncludedCache.read). An object changed or hidden between the two statements is shown as the second
 * one finds it, as when include read its objects on their own.
 */
export async function readPageWithIncludes(db: Database, cache: IncludedCache, access: Access, q: PageQuery, heads: readonly HeadWithPage[], maxBytes: number = MAX_PAGE_ANSWER_BYTES): Promise<PageWithIncludes<PageRow>> {
  const keys = heads.map((h) => headKey(db, h.className, h.strip));
  const reads: HeadRead[] = keys.map((k) => (cache.isWarm(k) ? 'version' : 'text'));
  const statement = pageWithIncludesStatement(access, q, heads, maxBytes, db.engine, reads);
  const all = await db.query<PartRow>(markedPage(statement, q));
  const rows: PageRow[] = [];
  const found = heads.map(() => [] as VersionedRow[]);
  const missing = heads.map(() => [] as string[]);
  const known = heads.map(() => true);
  let cut = false;
  for (const r of all) {
    if (r.part === 0) {
      if (r.data_text === null) cut = true;
      rows.push(r);
      continue;
    }
    const i = r.part - 1;
    if (r.data_text === null) continue;
    if (reads[i] === 'version') {
      const kept = cache.get(keys[i], r.objectId, r.data_text);
      if (kept) found[i].push(kept);
      else missing[i].push(r.objectId);
      continue;
    }
    const row = versioned(r, r.data_text);
    const kept = cache.get(keys[i], row.objectId, row.version);
    if (kept) found[i].push(kept);
    else {
      known[i] = false;
      cache.put(keys[i], row);
      found[i].push(row);
    }
  }
  if (cut) {
    all.length = 0;
    rows.length = 0;
    return { rows: await readBoundedPage<PageRow>(db, q, maxBytes), heads: new Map(), reread: true };
  }
  for (let i = 0; i < heads.length; i++) {
    if (missing[i].length) {
      known[i] = false;
      for (const r of await readVersioned(db, access, heads[i], missing[i])) {
        cache.put(keys[i], r);
        found[i].push(r);
      }
    }
    cache.read(keys[i], reads[i] === 'version', known[i]);
  }
  return { rows, heads: new Map(heads.map((h, i) => [h.field, { className: h.className, rows: found[i] }])), reread: false };
}

/** A head's objects by id with their versions and documents (those the cache missed). */
async function readVersioned(db: Database, access: Access, h: HeadWithPage, ids: readonly string[]): Promise<VersionedRow[]> {
  const columns = sql`"objectId", "createdAt", "updatedAt", ${versionedText(h)} AS data_text`;
  const read = await db.query<PartRow>(prepared(selectByIds(access, h.className, columns, ids)));
  return read.map((r) => versioned(r, r.data_text as string));
}

/**
 * What include may take from the prefetch, per head: the ids the statement looked for are those
 * of the page's documents (as read, before encoding) whose field is a Pointer to the head's class,
 * by the same test as the statement's.
 */
export function prefetchedHeads(page: readonly ObjectRow[], read: PageWithIncludes<PageRow>['heads']): Map<string, PrefetchedHead> {
  const out = new Map<string, PrefetchedHead>();
  for (const [field, { className, rows }] of read) {
    const considered = new Set<string>();
    for (const r of page) {
      const v = Object.hasOwn(r.data, field) ? r.data[field] : undefined;
      if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
      const p = v as Record<string, unknown>;
      if (p.__type === 'Pointer' && p.className === className && typeof p.objectId === 'string') considered.add(p.objectId);
    }
    out.set(field, { className, considered, rows: new Map(rows.map((r) => [r.objectId, documentRow(r)])) });
  }
  return out;
}

/** A prefetched object as include reads it: its document parsed (as the driver parses jsonb). */
function documentRow(r: VersionedRow): DocumentRow {
  return { objectId: r.objectId, createdAt: r.createdAt, updatedAt: r.updatedAt, data: JSON.parse(r.data_text) as Record<string, unknown> };
}
