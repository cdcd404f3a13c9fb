import type { ClassSchema } from '../model/class-schema.ts';

/** The marker a Relation field shows on the wire: `{"__type":"Relation","className":"Post"}`. */
export interface RelationMarker {
  readonly __type: 'Relation';
  readonly className: string;
}

type MarkerList = readonly (readonly [string, RelationMarker])[];

// Computed once per schema object: the registry replaces the object when a field is added, so a
// schema seen before never changes its list.
const memo = new WeakMap<ClassSchema, MarkerList>();

/** The Relation fields of a class with their markers (empty for most classes). */
export function relationMarkers(schema: ClassSchema | undefined): MarkerList {
  if (!schema) return [];
  let list = memo.get(schema);
  if (!list) {
    list = Object.entries(schema.fields)
      .filter(([, f]) => f.type === 'Relation' && typeof f.className === 'string')
      .map(([k, f]) => [k, { __type: 'Relation', className: f.className as string }] as const);
    memo.set(schema, list);
  }
  return list;
}

/** True when objects of the class show Relation markers (they then go through the parsing path). */
export function hasRelationFields(schema: ClassSchema | undefined): boolean {
  return relationMarkers(schema).length > 0;
}

/**
 * Adds the Relation marker of every Relation field of the class that the object does not carry.
 * LeanCloud shows `"likes": {"__type":"Relation","className":"Post"}` on every object of a class
 * that has the Relation field `likes`, also on objects that never had a relation op (recorded
 * traffic of the JS SDK's test suite), so clients can call `obj.relation('likes')` on any of them.
 */
export function addRelationMarkers<T extends Record<string, unknown>>(obj: T, schema: ClassSchema | undefined): T {
  for (const [key, marker] of relationMarkers(schema)) {
    if (obj[key] === undefined) (obj as Record<string, unknown>)[key] = { ...marker };
  }
  return obj;
}
