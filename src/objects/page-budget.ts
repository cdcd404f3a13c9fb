/**
 * The size bound of one page of a class query (issue 12 item 3). A page holds at most 1,000
 * objects, but each may be up to the body limit (20 MB): read whole, one page could take
 * gigabytes of server memory before anything is sent. The page statement therefore measures
 * each document's JSON text in the database and sends a document only when it is within an even
 * share of MAX_PAGE_ANSWER_BYTES; when one is not, a second statement adds the sizes up in query
 * order and sends the documents only of the rows that fit in the bound (and always the first: one
 * object is bounded by the body limit); the rows past the bound come without theirs: when there
 * are such rows, the query gets error 154 (`answerTooLarge`) and the server has held at most the
 * bound.
 * The same bound as a batch answer (batch/answer-budget.ts), so five such requests at once cost
 * at most about five times 64 MiB of document text.
 */
import { ApiError } from '../errors/api-error.ts';
import { sql, type Sql } from '../sql/fragment.ts';
import { heavy } from '../storage/heavy-lane.ts';
import type { Queryable } from '../storage/database.ts';
import { narrowRead } from '../storage/narrow-reads.ts';
import { preparedShape } from '../storage/prepared-statements.ts';

/** Largest total of document text one page may hold, bytes (64 MiB, as a batch answer). */
export const MAX_PAGE_ANSWER_BYTES = 64 * 1024 * 1024;

/** The parts of a planned page query. */
export interface PageQuery {
  table: Sql;
  filter: Sql;
  order: Sql;
  limit: number;
  skip: number;
  /** Also read the `acl` column (shown ACLs). */
  acl: boolean;
  /** Run the page statement prepared: the planner found its shape safe for that (plan/reusable-shape.ts). */
  reuse?: boolean;
  /** And it reads a narrow range of its index (plan/narrow-range.ts, storage/narrow-reads.ts). */
  narrow?: boolean;
}

/** The page statement as it runs: prepared when its shape allows, on the narrow reads' connections when narrow. */
export function markedPage(statement: Sql, q: PageQuery): Sql {
  if (!q.reuse) return statement;
  return q.narrow ? narrowRead(preparedShape(statement)) : preparedShape(statement);
}

/**
 * A row of a page: the document as its jsonb text (`data_text`), which the page's size bound has
 * measured anyway. Callers that need the object parse it (pageObjectRow); plain answers splice it
 * (raw-json.ts).
 */
export interface PageRow {
  objectId: string;
  createdAt: unknown;
  updatedAt: unknown;
  /** Only when the statement was asked for it (PageQuery.acl). */
  acl?: Record<string, { read?: boolean; write?: boolean }> | null;
  data_text: string;
}

/** A row as the page statement returns it: no document (nor ACL) once the page is over the bound. */
type StatementRow<R> = Omit<R, 'data_text'> & { data_text: string | null };

/**
 * The statement of one page, cut at the bound by a running sum: the query as before (filter, order,
 * limit, skip), wrapped so that the database adds up each row's JSON text size in the page's order
 * and sends the document (and ACL) only of the rows within the bound (and always of the first);
 * the rows past it come without them, so the caller knows the page was cut without having held it.
 * readPage runs it only when the cheaper statement (pageStatement) found a large document.
 */
export function boundedPageStatement(q: PageQuery, maxBytes: number = MAX_PAGE_ANSWER_BYTES): Sql {
  // One window over the rows in the order they come (the page's: a window without ORDER BY or
  // PARTITION BY neither sorts nor reorders them), and no outer filter and sort: the earlier form
  // (a running sum, count(*) OVER () over the buffered page, a filter and a sort on row_number)
  // cost about a fifth of the peer bench's range statement (docs/benchmarks.md, issue 16).
  const fits = sql`(sum(octet_length(p.data_text)) OVER w <= ${maxBytes} OR row_number() OVER w = 1)`;
  return heavy(sql`${pageSelect(q, fits)}
    WINDOW w AS (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`);
}

/**
 * The statement of one page, cut per row: a row's document (and ACL) comes only when its JSON text
 * is at most an even share of the bound (the bound divided by the page's limit), so a page whose
 * rows all came with their documents holds at most the bound, and is exactly what the running-sum
 * statement would have sent. Only a page with a document over the share (a 3.2 MiB document on a
 * page of 20) needs that statement. Without the window the statement costs PostgreSQL about 8%
 * less on the peer bench's range query (docs/benchmarks.md, "Page bound per row").
 */
export function pageStatement(q: PageQuery, maxBytes: number = MAX_PAGE_ANSWER_BYTES): Sql {
  return heavy(pageSelect(q, rowFits(q, maxBytes)));
}

/** Each row's share of the bound on a page of `limit` rows. */
function rowShare(limit: number, maxBytes: number): number {
  return Math.floor(maxBytes / Math.max(1, limit));
}

/** The page's SELECT, sending a row's document (and ACL) only where `fits` holds. */
function pageSelect(q: PageQuery, fits: Sql): Sql {
  // The document is turned into text only for the page's rows, after LIMIT, and once: in the
  // innermost SELECT PostgreSQL would do it for every row that matches before sorting (the peer
  // bench's range query: 87 matching rows for a page of 20; measured 2026-11-26 as about a fifth
  // of the statement's CPU), and the middle SELECT's OFFSET 0 keeps the planner from pulling it
  // up into the outer level, where the size and the output column would each convert it again.
  return sql`${boundedColumns(q, fits)}
    FROM (${pageRowsSelect(q)}
          OFFSET 0) p`;
}

/**
 * `SELECT p."objectId", ..., <data_text if it fits>` over the page's rows as `p` (pageRowsSelect's
 * columns): the outer level of a page statement, also used by the one that reads included
 * objects with the page (page-includes.ts).
 */
export function boundedColumns(q: PageQuery, fits: Sql): Sql {
  const pAcl = q.acl ? sql`, CASE WHEN ${fits} THEN p.acl END AS acl` : sql``;
  return sql`SELECT p."objectId", p."createdAt", p."updatedAt"${pAcl}, CASE WHEN ${fits} THEN p.data_text END AS data_text`;
}

/**
 * The page's rows (filter, order, limit, skip) with each document as text (`data_text`), not yet
 * bounded; `extra` adds columns computed from the row as `q` (its `data` is the document).
 */
export function pageRowsSelect(q: PageQuery, extra: Sql = sql``): Sql {
  const acl = q.acl ? sql`, acl` : sql``;
  const qAcl = q.acl ? sql`, q.acl` : sql``;
  return sql`SELECT q."objectId", q."createdAt", q."updatedAt"${qAcl}, q.data::text AS data_text${extra}
          FROM (SELECT "objectId", "createdAt", "updatedAt"${acl}, data FROM ${q.table} WHERE ${q.filter} ORDER BY ${q.order} LIMIT ${q.limit} OFFSET ${q.skip}) q`;
}

/** The per-row test of pageStatement: the row `p`'s document is within its share of the bound. */
export function rowFits(q: PageQuery, maxBytes: number = MAX_PAGE_ANSWER_BYTES): Sql {
  return sql`octet_length(p.data_text) <= ${rowShare(q.limit, maxBytes)}`;
}

/**
 * Reads one page within the bound: the per-row statement, and when a row came without its
 * document (one over its share), the running-sum statement instead, whose rows past the bound
 * make it 154. Either way at most about the bound of document text is held at once.
 */
export async function readPage<R extends PageRow>(db: Queryable, q: PageQuery, maxBytes: number = MAX_PAGE_ANSWER_BYTES): Promise<R[]> {
  const statement = pageStatement(q, maxBytes);
  // Only this statement is prepared: the running-sum one runs only on pages with a large document.
  const rows = await db.query<StatementRow<R>>(markedPage(statement, q));
  if (!rows.some((r) => r.data_text === null)) return rows as R[];
  // Let go of the rows within their share before the second statement's rows arrive.
  rows.length = 0;
  return readBoundedPage(db, q, maxBytes);
}

/** The running-sum statement of a page that had a document over its share: its rows, or 154. */
export async function readBoundedPage<R extends PageRow>(db: Queryable, q: PageQuery, maxBytes: number = MAX_PAGE_ANSWER_BYTES): Promise<R[]> {
  return checkedPage(await db.query<StatementRow<R>>(boundedPageStatement(q, maxBytes)), maxBytes);
}

/** The rows of a page; 154 when rows came without their document for size. */
function checkedPage<R extends PageRow>(rows: StatementRow<R>[], maxBytes: number = MAX_PAGE_ANSWER_BYTES): R[] {
  // The running size only grows, so the rows without a document are the last ones.
  const fit = rows.findIndex((r) => r.data_text === null);
  if (fit >= 0) {
    throw new ApiError('answerTooLarge', `The page of objects would hold more than ${maxBytes} bytes of object data; only ${fit} of its ${rows.length} objects fit. Ask for fewer objects per page (limit).`);
  }
  return rows as R[];
}
