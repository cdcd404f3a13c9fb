/**
 * The size bound of one page of a class query (issue 12 item 3). A page holds at most 1,000
 * objects, but each may be up to the body limit (20 MB): read whole, one page could take
 * gigabytes of server memory before anything is sent. The page statement therefore counts the
 * size of each document's JSON text in the database, in query order, and returns only the rows
 * that fit in MAX_PAGE_ANSWER_BYTES (and always the first: one object is bounded by the body
 * limit), plus how many rows the page had: when some were left behind, the query gets error 154 (`answerTooLarge`) and the server has held at most the bound.
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

/** Bookkeeping columns the page statement adds; removed from the rows before they are used. */
interface PageMarks {
  page_total?: unknown;
  page_rows?: unknown;
  page_row?: unknown;
}

/**
 * The statement of one page: the query as before (filter, order, limit, skip), wrapped so that
 * the database adds up each row's JSON text size in the page's order (the inner
 * ORDER BY fixes the order the window functions see; row_number keeps it for the outer one).
 */
export function pageStatement(q: PageQuery, maxBytes: number = MAX_PAGE_ANSWER_BYTES): Sql {
  // The document is turned into text only for the page's rows, after LIMIT, and once: in the
  // innermost SELECT PostgreSQL would do it for every row that matches before sorting (the peer
  // bench's range query: 87 matching rows for a page of 20; measured 2026-11-26 as about a fifth
  // of the statement's CPU), and the middle SELECT's OFFSET 0 keeps the planner from pulling it
  // up into the window level, where the size and the output column would each convert it again.
  const acl = q.acl ? sql`, acl` : sql``;
  const qAcl = q.acl ? sql`, q.acl` : sql``;
  return heavy(sql`SELECT * FROM (
    SELECT p.*, sum(octet_length(p.data_text)) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS page_total,
           count(*) OVER () AS page_rows, row_number() OVER () AS page_row
    FROM (SELECT q."objectId", q."createdAt", q."updatedAt"${qAcl}, q.data::text AS data_text
          FROM (SELECT "objectId", "createdAt", "updatedAt"${acl}, data FROM ${q.table} WHERE ${q.filter} ORDER BY ${q.order} LIMIT ${q.limit} OFFSET ${q.skip}) q
          OFFSET 0) p
  ) w WHERE w.page_total <= ${maxBytes} OR w.page_row = 1 ORDER BY w.page_row`);
}

/** The rows of a page without the bookkeeping columns; 154 when rows were left out for size. */
export function checkedPage<R extends object>(rows: (R & PageMarks)[], maxBytes: number = MAX_PAGE_ANSWER_BYTES): R[] {
  const total = rows.length > 0 ? Number(rows[0].page_rows) : 0;
  if (rows.length < total) {
    throw new ApiError('answerTooLarge', `The page of objects would hold more than ${maxBytes} bytes of object data; only ${rows.length} of its ${total} objects fit. Ask for fewer objects per page (limit).`);
  }
  for (const r of rows) {
    delete r.page_total;
    delete r.page_rows;
    delete r.page_row;
  }
  return rows;
}
