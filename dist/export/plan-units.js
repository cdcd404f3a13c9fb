import { ApiError } from '../errors/api-error.js';
import { formatClassSchema } from '../schema/schema-format.js';
import { classEntry, joinEntry, schemaEntry } from './archive-layout.js';
import { relationKeys } from './export-pages.js';
/**
 * The classes an export covers: the named ones (each must exist: 101 otherwise, so that a typo
 * is an error rather than an archive silently missing a class), or every class.
 */
export async function selectClasses(app, names) {
    const all = await app.classes.list();
    if (!names)
        return all;
    const byName = new Map(all.map((c) => [c.name, c]));
    const missing = names.filter((n) => !byName.has(n));
    if (missing.length)
        throw new ApiError('classNotFound', `Cannot export classes that do not exist: ${missing.slice(0, 20).join(', ')}.`);
    return names.map((n) => byName.get(n)).sort((a, b) => (a.name < b.name ? -1 : 1));
}
/** The entries of one job, class by class: schema, data, then one file per relation column. */
export async function planUnits(app, params) {
    const units = [];
    for (const schema of await selectClasses(app, params.classes)) {
        const className = schema.name;
        const fields = formatClassSchema(schema);
        units.push({ kind: 'schema', entry: schemaEntry(className), className, content: `${JSON.stringify({ className, fields })}\n` });
        if (params.onlySchema)
            continue;
        units.push({ kind: 'class', entry: classEntry(className), className });
        // Relation columns from the schema (declared, maybe empty) and from the join table.
        const keys = new Map();
        for (const [key, f] of Object.entries(fields))
            if (f.type === 'Relation')
                keys.set(key, f.className);
        for (const r of await relationKeys(app.db, className))
            if (!keys.get(r.key))
                keys.set(r.key, r.target);
        for (const [key, relatedClass] of [...keys].sort(([a], [b]) => (a < b ? -1 : 1))) {
            units.push({ kind: 'join', entry: joinEntry(className, key), className, key, relatedClass });
        }
    }
    return units;
}
//# sourceMappingURL=plan-units.js.map