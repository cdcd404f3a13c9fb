import { sql } from '../sql/fragment.js';
/** The column list every object read selects. */
export const OBJECT_COLUMNS = sql `"objectId", "createdAt", "updatedAt", acl, data`;
/** The columns of a read whose answer is spliced from the document's text (raw-json.ts). */
export const TEXT_COLUMNS = sql `"objectId", "createdAt", "updatedAt", data::text AS data_text`;
//# sourceMappingURL=object-row.js.map