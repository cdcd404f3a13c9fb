/**
 * What a file of a LeanCloud export is, from its name alone (leancloud-export-format §2, §5):
 * `<Class>.<n>.jsonl` (JSON Lines, the current export), `<Class>.json` (`{"results":[...]}`,
 * exports before 2021), `_Join:<column>:<owning class>.<n>.jsonl` or `.json` (relation
 * membership), `<Class>_schema.json` (column types). Folders inside an archive are ignored:
 * only the base name counts. Anything else is not part of an export and is skipped.
 */
const CLASS = '[A-Za-z_][A-Za-z0-9_]*';
const JSONL = new RegExp(`^(${CLASS})(?:\\.\\d+)?\\.jsonl$`);
const JSON_FILE = new RegExp(`^(${CLASS})\\.json$`);
const SCHEMA = new RegExp(`^(${CLASS})_schema\\.json$`);
const JOIN = new RegExp(`^_Join:([A-Za-z][A-Za-z0-9_]*):(${CLASS})(?:\\.\\d+)?\\.(jsonl|json)$`);
/** The last path segment of an entry name (archives may use either separator). */
export function baseName(path) {
    const parts = path.split(/[\\/]/);
    return parts[parts.length - 1];
}
/** Classifies a file name; undefined when it is not an export file. */
export function classifyEntry(path) {
    const name = baseName(path);
    if (name.startsWith('.'))
        return undefined; // macOS resource forks (._x) and hidden files
    const join = JOIN.exec(name);
    if (join)
        return { kind: 'join', column: join[1], owningClass: join[2], format: join[3] === 'jsonl' ? 'jsonl' : 'json' };
    const schema = SCHEMA.exec(name);
    if (schema)
        return { kind: 'schema', className: schema[1] };
    const lines = JSONL.exec(name);
    if (lines)
        return { kind: 'class', className: lines[1], format: 'jsonl' };
    const json = JSON_FILE.exec(name);
    if (json)
        return { kind: 'class', className: json[1], format: 'json' };
    return undefined;
}
const HEADER = /^#filetype:JSON-streaming\s+(\{.*\})\s*$/;
/** Parses a header line; undefined for any other comment. */
export function parseHeader(line) {
    const m = HEADER.exec(line);
    if (!m)
        return undefined;
    try {
        const v = JSON.parse(m[1]);
        if (typeof v !== 'object' || v === null || Array.isArray(v))
            return undefined;
        const r = v;
        const str = (x) => (typeof x === 'string' ? x : undefined);
        return { type: str(r.type), class: str(r.class), relatedClass: str(r.relatedClass) };
    }
    catch {
        return undefined;
    }
}
//# sourceMappingURL=export-entries.js.map