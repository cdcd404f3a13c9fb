/**
 * The answer of a class query with include, spliced from the documents' jsonb text (issue 16), as
 * a plain page's answer is (raw-json.ts): parsing every document of the page and of the included
 * objects, include's walk and JSON.stringify cost the server about ten times what splicing costs
 * (docs/benchmarks.md, "Include read with its page").
 *
 * Only the common case is spliced: every include path is one level and names a Pointer field
 * whose objects came with the page (page-includes.ts, under the included class's read ACL, its
 * `get` permission checked, the fields this reader never sees already left out in SQL). Anything
 * else makes spliceIncludes answer undefined and the caller takes the parsing path: an array or
 * any other non-pointer object in the field, a pointer whose text is not found exactly once in
 * its document, a File anywhere (files are expanded on parsed objects).
 *
 * Where the answer differs from the parsing path's, it is in JSON whitespace and number text
 * only: keys come in the same order with the same values.
 */
import type { HeadWithPage, PageRowWithPointers } from './page-includes.ts';
import { mayHoldFile, rowJson, type TextRow } from './raw-json.ts';

/**
 * jsonb's text of a plain pointer: its three keys in jsonb's order (by length, then bytes). Object
 * ids written by Larder or given on import are letters, digits, `_` and `-`, which jsonb and
 * JSON.stringify write alike; any other id is left to the parsing path.
 */
const POINTER_TEXT = /^\{"__type": "Pointer", "objectId": "([0-9A-Za-z_-]{1,128})", "className": "([0-9A-Za-z_]{1,128})"\}$/;

/** One pointer's text to replace by its object's: [start, end) in the row's document text. */
interface Edit {
  start: number;
  end: number;
  object: string;
}

/**
 * The wire JSON of each page row with its included objects in place, or undefined when the page
 * needs the parsing path. `heads[i]` is the head of each row's `pointers[i]`; `objects` holds, by
 * head field, the objects read with the page (their documents already without stripped fields).
 */
export function spliceIncludes(rows: readonly PageRowWithPointers[], heads: readonly HeadWithPage[], objects: ReadonlyMap<string, { rows: readonly TextRow[] }>): string[] | undefined {
  const wire = heads.map((h) => includedTexts(h.className, objects.get(h.field)?.rows ?? []));
  if (wire.some((w) => w === undefined)) return undefined;
  const out: string[] = [];
  for (const row of rows) {
    if (mayHoldFile(row)) return undefined;
    const edits: Edit[] = [];
    for (let i = 0; i < heads.length; i++) {
      const value = row.pointers[i];
      // Missing, null or a scalar: include leaves it as it is.
      if (value === null || (value[0] !== '{' && value[0] !== '[')) continue;
      const m = POINTER_TEXT.exec(value);
      if (!m || m[2] !== heads[i].className) return undefined;
      const object = (wire[i] as Map<string, string>).get(m[1]);
      // A missing object, or one the reader may not read, stays a pointer.
      if (object === undefined) continue;
      const at = uniqueMember(row.data_text, heads[i].field, value);
      if (at === undefined) return undefined;
      edits.push({ start: at, end: at + value.length, object });
    }
    out.push(rowJson(edits.length ? { ...row, data_text: applied(row.data_text, edits) } : row));
  }
  return out;
}

/**
 * Where the value of the top-level member `field` starts in the document's text, given the value's
 * text. jsonb writes a member as `"key": value`. The top-level member is one occurrence of that
 * text; when the text occurs once only, that occurrence is it (anywhere else, nested or across a
 * string's escaped quote, it would be a second one). Otherwise undefined.
 */
export function uniqueMember(doc: string, field: string, value: string): number | undefined {
  const member = `"${field}": ${value}`;
  const at = doc.indexOf(member);
  if (at < 0 || doc.indexOf(member, at + 1) >= 0) return undefined;
  return at + member.length - value.length;
}

function applied(doc: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let from = 0;
  for (const e of edits) {
    out += doc.slice(from, e.start) + e.object;
    from = e.end;
  }
  return out + doc.slice(from);
}

/**
 * The wire text of each included object by objectId, as include places it (encode.ts
 * encodeIncluded): `__type` and `className` first, then the document's shown fields in their
 * order, then objectId, createdAt and updatedAt. Undefined when one may hold a File.
 */
function includedTexts(className: string, rows: readonly TextRow[]): Map<string, string> | undefined {
  const head = `{"__type":"Pointer","className":${JSON.stringify(className)},`;
  const out = new Map<string, string>();
  for (const r of rows) {
    if (mayHoldFile(r)) return undefined;
    out.set(r.objectId, head + rowJson(r).slice(1));
  }
  return out;
}
