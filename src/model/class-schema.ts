/**
 * Field types as LeanCloud's /1.1/schemas names them. A field's type is fixed by its first
 * non-null write (the type lock, error 111 afterwards).
 */
export type FieldType =
  | 'String'
  | 'Number'
  | 'Boolean'
  | 'Date'
  | 'Bytes'
  | 'File'
  | 'Array'
  | 'Object'
  | 'GeoPoint'
  | 'Pointer'
  | 'Relation'
  | 'ACL';

/** One field of a class. `className` is set for Pointer and Relation fields. */
export interface FieldSchema {
  readonly type: FieldType;
  readonly className?: string;
}

/** What the planner and writers know about a class. */
export interface ClassSchema {
  readonly name: string;
  /** User fields only (reserved columns objectId/createdAt/updatedAt/ACL are implicit). */
  readonly fields: Readonly<Record<string, FieldSchema>>;
}

/** Columns every class table has; everything else lives in the `data` jsonb document. */
export const RESERVED_COLUMNS = ['objectId', 'createdAt', 'updatedAt', 'ACL'] as const;

/** The system classes (names starting with "_") that clients may address. */
export const BUILT_IN_CLASSES = [
  '_User',
  '_Role',
  '_File',
  '_Installation',
  '_Followee',
  '_Follower',
  '_FriendshipRequest',
  '_Conversation',
  '_Status',
] as const;

/** Built-in classes whose unknown objectId is 400/211 rather than 200 {}. */
export function isBuiltInClass(name: string): boolean {
  return (BUILT_IN_CLASSES as readonly string[]).includes(name);
}

/**
 * The locked type of a field, or undefined. An own-property lookup: `fields` is parsed JSON, so
 * `fields.toString` would otherwise find Object.prototype's function (issue 12, built-in names).
 */
export function fieldOf(schema: Pick<ClassSchema, 'fields'> | undefined, name: string): FieldSchema | undefined {
  return schema && Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
}
