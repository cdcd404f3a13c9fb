/**
 * The size bound of one page of a class query (issue 12 item 3). A page holds at most 1,000
 * objects, but each may be up to the body limit (20 MB): read whole, one page could take
 * gigabytes of server memory before anything is sent. The page statement therefore counts the
 * size of each document's JSON text in the database, in query order, and sends the documents only
 * of the rows that fit in MAX_PAGE_ANSWER_BYTES (and always the first: one object is bounded by the
 * body limit); the rows past the bound come without theirs: when there are such rows, the query
 * gets error 154 (`answerTooLarge`) and the server has held at most the bound.
 * The same bound as a batch answer (batch/answer-budget.ts), so five such requests at once cost
 * at most about five times 64 MiB of document text.
 */
import { ApiError } from '../errors/api-error.ts';
import { sql, type Sql } from '../sql/fragment.ts';
import { heavy } from '../storage/heavy-lane.ts';

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
 * The statement of one page: the query as before (filter, order, limit, skip), wrapped so that
 * the database adds up each row's JSON text size in the page's order and sends the document (and
 * ACL) only of the rows within the bound (and always of the first); the rows past it come without
 * them, so the caller knows the page was cut without having held it.
 */
export function pageStatement(q: PageQuery, maxBytes: number = MAX_PAGE_ANSWER_BYTES): Sql {
  // The document is turned into text only for the page's rows, after LIMIT, and once: in the
  // innermost SELECT PostgreSQL would do it for every row that matches before sorting (the peer
  // bench's range query: 87 matching rows for a page of 20; measured 2026-11-26 as about a fifth
  // of the statement's CPU), and the middle SELECT's OFFSET 0 keeps the planner from pulling it
  // up into the window level, where the size and the output column would each convert it again.
  // One window over the rows in the order they come (the page's: a window without ORDER BY or
  // PARTITION BY neither sorts nor reorders them), and no outer filter and sort: the earlier form
  // (a running sum, count(*) OVER () over the buffered page, a filter and a sort on row_number)
  // cost about a fifth of the peer bench's range statement (docs/benchmarks.md, issue 16).
  const acl = q.acl ? sql`, acl` : sql``;
  const qAcl = q.acl ? sql`, q.acl` : sql``;
  const fits = sql`(sum(octet_length(p.data_text)) OVER w <= ${maxBytes} OR row_number() OVER w = 1)`;
  const pAcl = q.acl ? sql`, CASE WHEN ${fits} THEN p.acl END AS acl` : sql``;
  return heavy(sql`SELECT p."objectId", p."createdAt", p."updatedAt"${pAcl}, CASE WHEN ${fits} THEN p.data_text END AS data_text
    FROM (SELECT q."objectId", q."createdAt", q."updatedAt"${qAcl}, q.data::text AS data_text
          FROM (SELECT "objectId", "createdAt", "updatedAt"${acl}, data FROM ${q.table} WHERE ${q.filter} ORDER BY ${q.order} LIMIT ${q.limit} OFFSET ${q.skip}) q
          OFFSET 0) p
    WINDOW w AS (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`);
}

/** The rows of a page; 154 when rows came without their document for size. */
export function checkedPage<R extends PageRow>(rows: StatementRow<R>[], maxBytes: number = MAX_PAGE_ANSWER_BYTES): R[] {
  // The running size only grows, so the rows without a document are the last ones.
  const fit = rows.findIndex((r) => r.data_text === null);
  if (fit >= 0) {
    throw new ApiError('answerTooLarge', `The page of objects would hold more than ${maxBytes} bytes of object data; only ${fit} of its ${rows.length} objects fit. Ask for fewer objects per page (limit).`);
  }
  return rows as R[];
}
