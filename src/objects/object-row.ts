import { sql, type Sql } from '../sql/fragment.ts';

/** A class-table row as read from the database. */
export interface ObjectRow {
  objectId: string;
  createdAt: unknown;
  updatedAt: unknown;
  acl: Record<string, { read?: boolean; write?: boolean }> | null;
  data: Record<string, unknown>;
  /** Present when the query orders by distance ($nearSphere). */
  [extra: string]: unknown;
}

/** The column list every object read selects. */
export const OBJECT_COLUMNS: Sql = sql`"objectId", "createdAt", "updatedAt", acl, data`;

/** The columns of a read whose answer is spliced from the document's text (raw-json.ts). */
export const TEXT_COLUMNS: Sql = sql`"objectId", "createdAt", "updatedAt", data::text AS data_text`;
