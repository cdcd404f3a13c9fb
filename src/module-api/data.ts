/**
 * Module surface: the value model and SQL building blocks for a module's own tables and rows.
 * User data reaches SQL only as bound parameters (`sql` tagged templates).
 */
export { ident, join, sql, type Sql } from '../sql/fragment.ts';
export type { Database, Queryable } from '../storage/database.ts';
export { moduleTables } from '../storage/module-tables.ts';
export { prepared } from '../storage/prepared-statements.ts';
export { indexName } from '../storage/class-table.ts';
export { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
export { encodeRow, type WireObject } from '../objects/encode.ts';
export { isPlainObject } from '../model/plain-object.ts';
export { isValidObjectId, newObjectId } from '../model/object-id.ts';
export { toIso } from '../objects/timestamps.ts';
export { permsOf, type Acl } from '../model/acl.ts';
export type { ClassSchema, FieldSchema } from '../model/class-schema.ts';
export { checkClassName, isFieldReference } from '../model/names.ts';
export { FILE_CLASS } from '../files/file-class.ts';
export { guessMimeType } from '../files/mime-type.ts';
