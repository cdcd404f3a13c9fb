import { hiddenFields } from '../schema/hidden-fields.js';
import { hasRelationFields } from './relation-fields.js';
import { toIso } from './timestamps.js';
/**
 * A response body that is already JSON text. The HTTP server sends the text as it is; anything
 * else that serialises it (a batch answer) gets the parsed value through toJSON, so a RawJson is
 * never sent as a quoted string by mistake.
 */
export class RawJson {
    text;
    constructor(text) {
        this.text = text;
    }
    toJSON() {
        return JSON.parse(this.text);
    }
}
// jsonb prints every File reference as `"__type": "File"` (with that spacing); text that may
// hold one goes through the parsing path, which expands files. A false alarm (a string value
// that happens to contain these characters) only costs the slower path.
const FILE_MARK = '"__type": "File"';
/**
 * Whether rows of this class can be sent as spliced text: no hidden fields to drop (only
 * built-in classes have them) and no Relation markers to add (relation-fields.ts). Callers also
 * need no include, no keys, no ACL in the answer.
 */
export function textEncodable(className, schema) {
    return hiddenFields(className).length === 0 && !hasRelationFields(schema);
}
/** Whether a row's document may hold a File reference (it then needs expandFiles). */
export function mayHoldFile(row) {
    return row.data_text.includes(FILE_MARK);
}
/**
 * The wire JSON of one row without parsing its document: the jsonb text with objectId,
 * createdAt and updatedAt appended, as encodeRow builds it (same keys, same order; the
 * document never holds these names at its top level, and were one there, the appended member
 * wins on parsing, as encodeRow's assignment does).
 */
export function rowJson(row) {
    const doc = row.data_text;
    // jsonb text of an object: `{}` or `{"k": v, ...}`; drop the closing brace and go on.
    const head = doc.length > 2 ? `${doc.slice(0, -1)},` : '{';
    return `${head}"objectId":${JSON.stringify(row.objectId)},"createdAt":"${toIso(row.createdAt)}","updatedAt":"${toIso(row.updatedAt)}"}`;
}
/** A text row as the parsing path reads it (no ACL: text rows are read only when none is shown). */
export function parsedRow(row) {
    return { objectId: row.objectId, createdAt: row.createdAt, updatedAt: row.updatedAt, acl: null, data: JSON.parse(row.data_text) };
}
//# sourceMappingURL=raw-json.js.map