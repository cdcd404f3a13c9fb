import { openPostgres } from './postgres.js';
/**
 * Opens PostgreSQL when a URL is given, else the embedded PGlite engine. PGlite is imported
 * only when used: loading its WASM build costs each process about 40 MB of memory.
 */
export async function openDatabase(t) {
    if (t.databaseUrl)
        return openPostgres({ url: t.databaseUrl, schema: t.schema, poolSize: t.poolSize, statementTimeoutMs: t.statementTimeoutMs });
    const { openPglite } = await import('./pglite.js');
    return openPglite({ dataDir: t.dataDir, schema: t.schema });
}
//# sourceMappingURL=open-database.js.map