/**
 * What one export job writes: the list of archive entries, in a fixed order, so that a resumed
 * job walks the same list and can tell what is already done.
 */
import type { AppContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { formatClassSchema } from '../schema/schema-format.ts';
import type { ClassSchema } from '../model/class-schema.ts';
import { classEntry, joinEntry, schemaEntry } from './archive-layout.ts';
import type { ExportParams } from './export-params.ts';
import { relationKeys } from './export-pages.ts';

/** One archive entry to produce. */
export type ExportUnit =
  | { kind: 'schema'; entry: string; className: string; content: string }
  | { kind: 'class'; entry: string; className: string }
  | { kind: 'join'; entry: string; className: string; key: string; relatedClass?: string };

/**
 * The classes an export covers: the named ones (each must exist: 101 otherwise, so that a typo
 * is an error rather than an archive silently missing a class), or every class.
 */
export async function selectClasses(app: AppContext, names: readonly string[] | undefined): Promise<ClassSchema[]> {
  const all = await app.classes.list();
  if (!names) return all;
  const byName = new Map(all.map((c) => [c.name, c]));
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length) throw new ApiError('classNotFound', `Cannot export classes that do not exist: ${missing.slice(0, 20).join(', ')}.`);
  return names.map((n) => byName.get(n) as ClassSchema).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The entries of one job, class by class: schema, data, then one file per relation column. */
export async function planUnits(app: AppContext, params: ExportParams): Promise<ExportUnit[]> {
  const units: ExportUnit[] = [];
  for (const schema of await selectClasses(app, params.classes)) {
    const className = schema.name;
    const fields = formatClassSchema(schema);
    units.push({ kind: 'schema', entry: schemaEntry(className), className, content: `${JSON.stringify({ className, fields })}\n` });
    if (params.onlySchema) continue;
    units.push({ kind: 'class', entry: classEntry(className), className });
    // Relation columns from the schema (declared, maybe empty) and from the join table.
    const keys = new Map<string, string | undefined>();
    for (const [key, f] of Object.entries(fields)) if (f.type === 'Relation') keys.set(key, f.className);
    for (const r of await relationKeys(app.db, className)) if (!keys.get(r.key)) keys.set(r.key, r.target);
    for (const [key, relatedClass] of [...keys].sort(([a], [b]) => (a < b ? -1 : 1))) {
      units.push({ kind: 'join', entry: joinEntry(className, key), className, key, relatedClass });
    }
  }
  return units;
}
