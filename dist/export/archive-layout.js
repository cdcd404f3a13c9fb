/**
 * Names and header lines of the archive entries, as LeanCloud's console export writes them
 * (docs/export.md; spec/leancloud-export-format.md §2 and §5): `<Class>.0.jsonl` per class,
 * `_Join:<column>:<owning class>.0.jsonl` per relation column, `<Class>_schema.json` per class.
 */
/** The data file of a class. */
export function classEntry(className) {
    return `${className}.0.jsonl`;
}
/** The membership file of one relation column of a class. */
export function joinEntry(className, key) {
    return `_Join:${key}:${className}.0.jsonl`;
}
/** The schema file of a class. */
export function schemaEntry(className) {
    return `${className}_schema.json`;
}
/** First line of a class file; word for word what LeanCloud writes. */
export function classHeader(className) {
    return `#filetype:JSON-streaming ${JSON.stringify({ type: 'Class', class: className })}\n`;
}
/**
 * First line of a relation file: same shape with type "Join"; `relatedClass` names the class of
 * `relatedId` (readers that skip `#` lines lose nothing: the owning rows and the schema file
 * carry it too, as `{"__type":"Relation","className":...}`).
 */
export function joinHeader(className, key, relatedClass) {
    const head = { type: 'Join', class: `_Join:${key}:${className}` };
    if (relatedClass)
        head.relatedClass = relatedClass;
    return `#filetype:JSON-streaming ${JSON.stringify(head)}\n`;
}
//# sourceMappingURL=archive-layout.js.map