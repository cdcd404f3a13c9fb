import { ApiError } from '../errors/api-error.ts';
import { sql } from '../sql/fragment.ts';
import type { Database, Queryable } from '../storage/database.ts';
import { createClassTable } from '../storage/class-table.ts';
import { NO_SECURITY, storedPermissions, type ClassSecurity } from './class-security.ts';
import { fieldOf, type ClassSchema, type FieldSchema } from '../model/class-schema.ts';

/** Most classes an app may have (spec: Limits). */
export const MAX_CLASSES = 500;
/** Most fields a class may have (spec: Limits). */
export const MAX_FIELDS = 300;

interface CatalogueRow {
  name: string;
  fields: Record<string, FieldSchema>;
}

interface SecurityRow {
  name: string;
  permissions: unknown;
  default_acl: Record<string, unknown> | null;
}

function securityOf(r: SecurityRow): ClassSecurity {
  return { permissions: storedPermissions(r.permissions), defaultAcl: r.default_acl ?? null };
}

function sameType(a: FieldSchema, b: FieldSchema): boolean {
  return a.type === b.type && (a.className ?? null) === (b.className ?? null);
}

function describe(f: FieldSchema): string {
  return f.className ? `${f.type}<${f.className}>` : f.type;
}

/**
 * The class catalogue: which classes exist and the locked type of each field. Reads are served
 * from a per-process cache; every change goes through the database under a row lock, so
 * several processes on one database agree. A stale cache only costs a database round trip.
 */
export class ClassRegistry {
  private readonly cache = new Map<string, ClassSchema>();
  // Class permissions and default ACLs, apart from the schema cache: they change only through
  // the admin endpoint, which drops them here in every process (auth/cache-invalidation.ts).
  private readonly securityCache = new Map<string, ClassSecurity>();
  // Bumped by every forget, so a read that raced with a change is not cached afterwards.
  private securityGeneration = 0;

  constructor(private readonly db: Database) {}

  /** Loads every class into the cache (start-up); resolves to the classes read. */
  async load(): Promise<ClassSchema[]> {
    const rows = await this.db.query<CatalogueRow>(sql`SELECT name, fields FROM _larder_classes`);
    const read = rows.map((r): ClassSchema => ({ name: r.name, fields: r.fields }));
    for (const schema of read) this.cache.set(schema.name, schema);
    await this.loadSecurity();
    return read;
  }

  /** (Re)loads every class's permissions and default ACL. */
  async loadSecurity(): Promise<void> {
    const generation = this.securityGeneration;
    const rows = await this.db.query<SecurityRow>(sql`SELECT name, permissions, default_acl FROM _larder_classes`);
    if (generation !== this.securityGeneration) return;
    this.securityCache.clear();
    for (const r of rows) this.securityCache.set(r.name, securityOf(r));
  }

  /** Class permissions and default ACL (nothing configured for an unknown class). */
  async security(name: string): Promise<ClassSecurity> {
    const hit = this.securityCache.get(name);
    if (hit) return hit;
    const generation = this.securityGeneration;
    const rows = await this.db.query<SecurityRow>(sql`SELECT name, permissions, default_acl FROM _larder_classes WHERE name = ${name}`);
    // Unknown classes are not remembered: a class created later must be read afresh.
    if (!rows[0]) return NO_SECURITY;
    const sec = securityOf(rows[0]);
    if (generation === this.securityGeneration) this.securityCache.set(name, sec);
    return sec;
  }

  /** Drops cached security of one class, or of all (after an admin change in any process). */
  forgetSecurity(name?: string): void {
    this.securityGeneration++;
    if (name === undefined) this.securityCache.clear();
    else this.securityCache.delete(name);
  }

  /** The cached schema, if this process knows the class. */
  cached(name: string): ClassSchema | undefined {
    return this.cache.get(name);
  }

  /** The schema of an existing class, or undefined; consults the database on a cache miss. */
  async find(name: string, q: Queryable = this.db): Promise<ClassSchema | undefined> {
    const hit = this.cache.get(name);
    if (hit) return hit;
    const rows = await q.query<CatalogueRow>(sql`SELECT name, fields FROM _larder_classes WHERE name = ${name}`);
    if (!rows[0]) return undefined;
    const schema = { name, fields: rows[0].fields };
    this.cache.set(name, schema);
    return schema;
  }

  /**
   * Every class, fresh from the database. The answer is the rows read, not the cache afterwards:
   * a concurrent forget() (an admin read of one class) may empty a cache entry while load()
   * awaits the security query, and a list taken from the cache then lacked that class (the
   * console's schema page said "Class Post does not exist." on a loaded CI machine).
   */
  async list(): Promise<ClassSchema[]> {
    return (await this.load()).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Creates the class (table + catalogue row) if it does not exist; enforces the class limit. */
  async ensureClass(tx: Queryable, name: string): Promise<ClassSchema> {
    const known = await this.find(name, tx);
    if (known) return known;
    // Serialise creation of this class name across processes; DDL races otherwise.
    await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${'larder.class.' + name}))`);
    const again = await tx.query<CatalogueRow>(sql`SELECT name, fields FROM _larder_classes WHERE name = ${name}`);
    if (again[0]) return { name, fields: again[0].fields };
    const [{ n }] = await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_classes`);
    if (n >= MAX_CLASSES) throw new ApiError('quotaExceeded', `An app may have at most ${MAX_CLASSES} classes.`);
    for (const stmt of createClassTable(name)) await tx.query(stmt);
    await tx.query(sql`INSERT INTO _larder_classes (name) VALUES (${name}) ON CONFLICT DO NOTHING`);
    // Not cached yet: the transaction may still roll back.
    return { name, fields: {} };
  }

  /** True when every field is already known in the cache with the same type. */
  knowsAll(name: string, types: Record<string, FieldSchema>): boolean {
    const schema = this.cache.get(name);
    if (!schema) return false;
    for (const [k, t] of Object.entries(types)) {
      const have = fieldOf(schema, k);
      if (!have) return false;
      if (!sameType(have, t)) throw mismatch(k, have, t);
    }
    return true;
  }

  /**
   * The type lock: checks each written field against its locked type (111) and records new
   * fields, enforcing the field limit (a class may have several GeoPoint fields, as LeanCloud
   * accepted). Runs in the write's transaction, holding the catalogue row lock while new fields
   * are added.
   */
  async lockFields(tx: Queryable, name: string, types: Record<string, FieldSchema>): Promise<ClassSchema> {
    const cached = this.cache.get(name);
    if (cached && this.knowsAll(name, types)) return cached;
    const rows = await tx.query<CatalogueRow>(sql`SELECT name, fields FROM _larder_classes WHERE name = ${name} FOR UPDATE`);
    if (!rows[0]) throw new ApiError('classNotFound');
    const fields: Record<string, FieldSchema> = { ...rows[0].fields };
    const added: Record<string, FieldSchema> = {};
    for (const [k, t] of Object.entries(types)) {
      const have = Object.hasOwn(fields, k) ? fields[k] : undefined;
      if (have) {
        if (!sameType(have, t)) throw mismatch(k, have, t);
        continue;
      }
      fields[k] = t;
      added[k] = t;
    }
    if (Object.keys(fields).length > MAX_FIELDS) throw new ApiError('quotaExceeded', `A class may have at most ${MAX_FIELDS} fields.`);
    if (Object.keys(added).length) {
      await tx.query(sql`UPDATE _larder_classes SET fields = fields || ${JSON.stringify(added)}::jsonb WHERE name = ${name}`);
    }
    return { name, fields };
  }

  /** Publishes a schema read or changed by a committed transaction to the cache. */
  publish(schema: ClassSchema): void {
    const have = this.cache.get(schema.name);
    // Never shrink: a concurrent commit may already have published more fields.
    this.cache.set(schema.name, have ? { name: schema.name, fields: { ...have.fields, ...schema.fields } } : schema);
  }

  /** Drops cached knowledge of a class (after an admin change). */
  forget(name: string): void {
    this.cache.delete(name);
    this.forgetSecurity(name);
  }
}

function mismatch(key: string, have: FieldSchema, got: FieldSchema): ApiError {
  return new ApiError('incorrectType', `Field '${key}' has type ${describe(have)}, but ${describe(got)} was given.`);
}
