import pg from 'pg';

/** The PostgreSQL database the benchmark uses unless BENCH_DATABASE_URL says otherwise. */
export const DEFAULT_BENCH_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/larder_bench';

/** The benchmark database URL: BENCH_DATABASE_URL or the local default. */
export function benchDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.BENCH_DATABASE_URL || DEFAULT_BENCH_DATABASE_URL;
}

/** A fresh schema name per run, so runs never see each other's tables and cleanup is one DROP. */
export function freshSchemaName(): string {
  return `bench_${Date.now().toString(36)}_${process.pid}`;
}

/**
 * Creates the database named in the URL when it does not exist, connecting to the server's
 * `postgres` database to do so (CREATE DATABASE cannot run inside the target itself).
 */
export async function ensureDatabase(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await probe.connect();
    return;
  } catch (err) {
    // 3D000 = invalid_catalog_name: the database is missing; anything else is a real failure.
    if ((err as { code?: string }).code !== '3D000') throw new Error(`cannot connect to ${redact(url)}: ${(err as Error).message}`);
  } finally {
    await probe.end().catch(() => {});
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`refusing to create database with unusual name ${JSON.stringify(name)}`);
  target.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: target.toString(), connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } catch (err) {
    // 42P04 = duplicate_database: another run created it in the meantime.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await admin.end().catch(() => {});
  }
}

/** Drops the run's schema and everything in it (Larder's tables and the direct-side tables). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL with its password hidden, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** A pg.Pool working inside the run's schema, like Larder's own connections. */
export function openPool(url: string, schema: string, size: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    options: `-c search_path=${schema},public -c TimeZone=UTC`,
  });
  // An idle client that errors must not crash the bench; the next query reports the problem.
  pool.on('error', () => {});
  return pool;
}
