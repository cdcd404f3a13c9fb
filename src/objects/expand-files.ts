import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import type { WireObject } from './encode.ts';
import { toIso } from './timestamps.ts';

interface FileRef {
  __type: 'File';
  id: string;
}

function isFileRef(v: unknown): v is FileRef {
  if (typeof v !== 'object' || v === null) return false;
  const f = v as Record<string, unknown>;
  return f.__type === 'File' && typeof f.id === 'string';
}

interface FileRow {
  objectId: string;
  createdAt: unknown;
  updatedAt: unknown;
  data: Record<string, unknown>;
}

/**
 * Files are stored as references `{__type:"File", id}` and read back expanded to the file's
 * record (name, url, mime_type, metaData, ...), as LeanCloud returns them. One query for all
 * references in a response. Top-level fields and arrays of files are expanded.
 */
export async function expandFiles(db: Queryable, objects: WireObject[]): Promise<void> {
  const slots: { holder: WireObject | unknown[]; key: string | number; id: string }[] = [];
  // for...in over own keys rather than Object.entries: no array per object and field (this walk
  // runs over every object of every page that goes through the parsing path, include's too).
  const visit = (obj: WireObject) => {
    for (const k in obj) {
      if (!Object.hasOwn(obj, k)) continue;
      const v = obj[k];
      if (typeof v !== 'object' || v === null) continue;
      if (isFileRef(v)) slots.push({ holder: obj, key: k, id: v.id });
      else if (Array.isArray(v)) v.forEach((item, i) => isFileRef(item) && slots.push({ holder: v, key: i, id: item.id }));
      else if ((v as WireObject).__type === 'Pointer') visit(v as WireObject);
    }
  };
  objects.forEach(visit);
  if (!slots.length) return;
  const ids = [...new Set(slots.map((s) => s.id))];
  const rows = await db.query<FileRow>(sql`SELECT "objectId", "createdAt", "updatedAt", data FROM "_File" WHERE "objectId" = ANY(${ids}::text[])`);
  const files = new Map(rows.map((r) => [r.objectId, { ...r.data, __type: 'File', id: r.objectId, objectId: r.objectId, createdAt: toIso(r.createdAt), updatedAt: toIso(r.updatedAt) }]));
  for (const s of slots) {
    const f = files.get(s.id);
    if (!f) continue;
    if (Array.isArray(s.holder)) s.holder[s.key as number] = f;
    else s.holder[s.key as string] = f;
  }
}
