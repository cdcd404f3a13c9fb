/**
 * The type lock for migrated rows: each field's type is fixed by its first write (error 111
 * afterwards), as for API writes. Rows whose fields are all known pass without I/O; new fields
 * are registered under the catalogue row lock, one lockFields call per row that brings new
 * fields (a class has few distinct field sets, so a batch costs a handful of round trips).
 * A row that conflicts with the locked types (or breaks a limit) is skipped with the reason.
 */
import { isApiError } from '../errors/api-error.ts';
import type { ClassSchema, FieldSchema } from '../model/class-schema.ts';
import type { ImportTarget, IndexedRow, SkippedRecord } from './write-objects.ts';

function describe(f: FieldSchema): string {
  return f.className ? `${f.type}<${f.className}>` : f.type;
}

/** 'known', 'new', or the mismatch message of the first field whose type differs. */
function compare(fields: Readonly<Record<string, FieldSchema>>, types: Record<string, FieldSchema>): 'known' | 'new' | string {
  let out: 'known' | 'new' = 'known';
  for (const [k, t] of Object.entries(types)) {
    const have = fields[k];
    if (!have) out = 'new';
    else if (have.type !== t.type || (have.className ?? null) !== (t.className ?? null)) {
      return `Field '${k}' has type ${describe(have)}, but ${describe(t)} was given (code 111).`;
    }
  }
  return out;
}

/** The rows that passed the type lock; the others are added to `skipped`. */
export async function lockRowTypes(target: ImportTarget, className: string, rows: IndexedRow[], skipped: SkippedRecord[]): Promise<IndexedRow[]> {
  const { db, classes } = target;
  const cached = classes.cached(className);
  const ok: IndexedRow[] = [];
  const pending: IndexedRow[] = [];
  for (const r of rows) {
    const verdict = cached ? compare(cached.fields, r.row.types) : 'new';
    if (verdict === 'known') ok.push(r);
    else if (verdict === 'new') pending.push(r);
    else skipped.push({ index: r.index, objectId: r.row.objectId, reason: verdict });
  }
  if (!pending.length) return ok;
  const schema: ClassSchema = await db.transaction(async (tx) => {
    await classes.ensureClass(tx, className);
    let s = await classes.lockFields(tx, className, {});
    for (const r of pending) {
      const verdict = compare(s.fields, r.row.types);
      if (verdict === 'known') {
        ok.push(r);
        continue;
      }
      if (verdict !== 'new') {
        skipped.push({ index: r.index, objectId: r.row.objectId, reason: verdict });
        continue;
      }
      try {
        // Its checks (111, field limit) run before its UPDATE: a refusal leaves
        // the transaction usable.
        s = await classes.lockFields(tx, className, r.row.types);
        ok.push(r);
      } catch (err) {
        if (!isApiError(err)) throw err;
        skipped.push({ index: r.index, objectId: r.row.objectId, reason: `${err.message} (code ${err.code})` });
      }
    }
    return s;
  });
  classes.publish(schema);
  return ok;
}
