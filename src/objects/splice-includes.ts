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
 * any other non-pointer object in the field, a pointer to another class, a File anywhere (files
 * are expanded on parsed objects).
 *
 * Where the answer differs from the parsing path's, it is in JSON whitespace and number text
 * only: keys come in the same order with the same values.
 */
import type { PageRow } from './page-budget.ts';
import type { HeadWithPage } from './page-includes.ts';
import type { VersionedRow } from './included-cache.ts';
import { mayHoldFile, rowJson, type TextRow } from './raw-json.ts';

/**
 * jsonb's text of a plain pointer: its three keys in jsonb's order (by length, then bytes). Object
 * ids written by Larder or given on import are letters, digits, `_` and `-`, which jsonb and
 * JSON.stringify write alike; any other id is left to the parsing path. Sticky: it is tried at the
 * start of a member's value.
 */
const POINTER_TEXT = /\{"__type": "Pointer", "objectId": "([0-9A-Za-z_-]{1,128})", "className": "([0-9A-Za-z_]{1,128})"\}/y;

/** One pointer's text to replace by its object's: [start, end) in the row's document text. */
interface Edit {
  start: number;
  end: number;
  object: string;
}

/**
 * The wire JSON of each page row with its included objects in place, or undefined when the page
 * needs the parsing path. `objects` holds, by head field, the objects read with the page (their
 * documents already without the fields this reader never sees).
 */
export function spliceIncludes(rows: readonly PageRow[], heads: readonly HeadWithPage[], objects: ReadonlyMap<string, { rows: readonly IncludedRow[] }>): string[] | undefined {
  const wire = heads.map((h) => includedTexts(h.className, objects.get(h.field)?.rows ?? []));
  if (wire.some((w) => w === undefined)) return undefined;
  const out: string[] = [];
  for (const row of rows) {
    const doc = row.data_text;
    if (mayHoldFile(row)) return undefined;
    const edits: Edit[] = [];
    for (let i = 0; i < heads.length; i++) {
      const at = topLevelValue(doc, heads[i].field);
      // Missing, null or a scalar: include leaves it as it is.
      if (at < 0 || (doc[at] !== '{' && doc[at] !== '[')) continue;
      POINTER_TEXT.lastIndex = at;
      const m = POINTER_TEXT.exec(doc);
      // An array, another object or a pointer to another class: the parsing path.
      if (!m || m[2] !== heads[i].className) return undefined;
      const object = (wire[i] as Map<string, string>).get(m[1]);
      // A missing object, or one the reader may not read, stays a pointer.
      if (object !== undefined) edits.push({ start: at, end: POINTER_TEXT.lastIndex, object });
    }
    out.push(rowJson(edits.length ? { ...row, data_text: applied(doc, edits) } : row));
  }
  return out;
}

/**
 * Where the value of the top-level member `field` starts in jsonb's text of an object, or -1.
 * jsonb writes a member as `"key": value`; a string followed by `:` is a key. Strings are skipped
 * whole (a `\` escapes the next character), brackets counted outside them.
 */
export function topLevelValue(doc: string, field: string): number {
  const key = `"${field}": `;
  let depth = 0;
  for (let i = 0; i < doc.length; i++) {
    const ch = doc.charCodeAt(i);
    if (ch === 34) {
      if (depth === 1 && doc.startsWith(key, i)) return i + key.length;
      for (i++; i < doc.length; i++) {
        const c = doc.charCodeAt(i);
        if (c === 92) i++;
        else if (c === 34) break;
      }
    } else if (ch === 123 || ch === 91) depth++;
    else if (ch === 125 || ch === 93) depth--;
  }
  return -1;
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

/** An included object's text; `wire` keeps its wire text once made (a cached row's, included-cache.ts). */
export type IncludedRow = TextRow & Pick<VersionedRow, 'wire'>;

/**
 * The wire text of each included object by objectId, as include places it (encode.ts
 * encodeIncluded): `__type` and `className` first, then the document's shown fields in their
 * order, then objectId, createdAt and updatedAt. Undefined when one may hold a File. Each row's
 * text is made once and kept on it: a cached object is spliced into many answers.
 */
function includedTexts(className: string, rows: readonly IncludedRow[]): Map<string, string> | undefined {
  const out = new Map<string, string>();
  for (const r of rows) {
    // A row's class never changes: it is cached under its head's class (included-cache.ts headKey).
    if (r.wire === undefined) r.wire = mayHoldFile(r) ? null : `{"__type":"Pointer","className":${JSON.stringify(className)},${rowJson(r).slice(1)}`;
    if (r.wire === null) return undefined;
    out.set(r.objectId, r.wire);
  }
  return out;
}
