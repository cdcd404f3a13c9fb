import { sql } from '../sql/fragment.js';
import { toIso } from './timestamps.js';
function isFileRef(v) {
    if (typeof v !== 'object' || v === null)
        return false;
    const f = v;
    return f.__type === 'File' && typeof f.id === 'string';
}
/**
 * Files are stored as references `{__type:"File", id}` and read back expanded to the file's
 * record (name, url, mime_type, metaData, ...), as LeanCloud returns them. One query for all
 * references in a response. Top-level fields and arrays of files are expanded.
 */
export async function expandFiles(db, objects) {
    const slots = [];
    const visit = (obj) => {
        for (const [k, v] of Object.entries(obj)) {
            if (isFileRef(v))
                slots.push({ holder: obj, key: k, id: v.id });
            else if (Array.isArray(v))
                v.forEach((item, i) => isFileRef(item) && slots.push({ holder: v, key: i, id: item.id }));
            else if (typeof v === 'object' && v !== null && v.__type === 'Pointer')
                visit(v);
        }
    };
    objects.forEach(visit);
    if (!slots.length)
        return;
    const ids = [...new Set(slots.map((s) => s.id))];
    const rows = await db.query(sql `SELECT "objectId", "createdAt", "updatedAt", data FROM "_File" WHERE "objectId" = ANY(${ids}::text[])`);
    const files = new Map(rows.map((r) => [r.objectId, { ...r.data, __type: 'File', id: r.objectId, objectId: r.objectId, createdAt: toIso(r.createdAt), updatedAt: toIso(r.updatedAt) }]));
    for (const s of slots) {
        const f = files.get(s.id);
        if (!f)
            continue;
        if (Array.isArray(s.holder))
            s.holder[s.key] = f;
        else
            s.holder[s.key] = f;
    }
}
//# sourceMappingURL=expand-files.js.map