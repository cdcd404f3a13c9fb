import type { ObjectRow } from './object-row.ts';
import { toIso } from './timestamps.ts';

/**
 * A response body that is already JSON text. The HTTP server sends the text as it is; anything
 * else that serialises it (a batch answer) gets the parsed value through toJSON, so a RawJson is
 * never sent as a quoted string by mistake.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A class-table row read with its document as jsonb text (`data::text`). */
export interface TextRow {
  objectId: string;
  createdAt: unknown;
  updatedAt: unknown;
  data_text: string;
}

// jsonb prints every File reference as `"__type": "File"` (with that spacing); text that may
// hold one goes through the parsing path, which expands files. A false alarm (a string value
// that happens to contain these characters) only costs the slower path.
const FILE_MARK = '"__type": "File"';

/** Whether a row's document may hold a File reference (it then needs expandFiles). */
export function mayHoldFile(row: TextRow): boolean {
  // `File"` first: the mark starts with `"`, which JSON text is full of, so V8's search for it
  // soon switches to a Boyer-Moore-Horspool search with tables built on every call; `F` is rare,
  // and the short pattern is a plain scan. About 5-10 times cheaper on a page of 20 documents
  // without files (docs/benchmarks.md, issue 16). Same answer: the mark contains `File"`.
  const doc = row.data_text;
  return doc.includes('File"') && doc.includes(FILE_MARK);
}

/**
 * The wire JSON of one row without parsing its document: the jsonb text with objectId,
 * createdAt and updatedAt appended, as encodeRow builds it (same keys, same order; the
 * document never holds these names at its top level, and were one there, the appended member
 * wins on parsing, as encodeRow's assignment does).
 */
export function rowJson(row: TextRow): string {
  const doc = row.data_text;
  // jsonb text of an object: `{}` or `{"k": v, ...}`; drop the closing brace and go on.
  const head = doc.length > 2 ? `${doc.slice(0, -1)},` : '{';
  return `${head}"objectId":${JSON.stringify(row.objectId)},"createdAt":"${toIso(row.createdAt)}","updatedAt":"${toIso(row.updatedAt)}"}`;
}

/**
 * A text row as the parsing path reads it: the document parsed as the driver parses a jsonb
 * column (JSON.parse of the same text), the ACL when the row was read with it.
 */
export function parsedRow(row: TextRow & { acl?: ObjectRow['acl'] }): ObjectRow {
  return { objectId: row.objectId, createdAt: row.createdAt, updatedAt: row.updatedAt, acl: row.acl ?? null, data: JSON.parse(row.data_text) as Record<string, unknown> };
}
