/**
 * `node bench/include-cache-cost.mjs <database url> [rounds 10] [executions 300]`
 *
 * PostgreSQL backend CPU per execution (/proc/<pid>/schedstat, so run it on the database's machine)
 * of h's joint statement (page + owners by a join, src/objects/page-includes.ts) on a database the
 * peer bench seeded (schema `larder`), three ways of reading the owners: their stripped documents
 * (`docs`, main before the cache), each one's row version and document (`text`, what a head reads
 * while the cache misses), and the version alone (`version`, what it reads once the cache holds
 * them: src/objects/included-cache.ts). One connection, named (prepared) statements, variants
 * interleaved, random windows of `n`. docs/benchmarks.md, "Include's documents kept by row version".
 */
import { PAGE, STRIP, measureVariants, openBackend, pageRows, printMedians } from './statement-cost-lib.mjs';
const db = await openBackend(process.argv[2]);
const owners = (cols) => `SELECT $6::int, "objectId", ${cols} FROM (SELECT DISTINCT i.id FROM (SELECT p.ptr_0->>'objectId' FROM page p WHERE p.ptr_0->>'__type' = 'Pointer' AND p.ptr_0->>'className' = $7::text) AS i(id)) AS ids JOIN "_User" ON "objectId" = ids.id WHERE rperm && '{*}'::text[]`;
const page = `${PAGE} ${pageRows()} `;
const version = `"_User".xmin::text || ':' || "_User".ctid::text`;
const V = {
  docs: [page + owners('"createdAt", "updatedAt", (data - $8::text[])::text'), [STRIP]],
  text: [page + owners(`"createdAt", "updatedAt", ${version} || ' ' || (data - $8::text[])::text`), [STRIP]],
  version: [page + owners(`NULL, NULL, ${version}`), []],
};
const rounds = Number(process.argv[3] ?? 10), per = Number(process.argv[4] ?? 300);
const res = await measureVariants(db, V, rounds, per);
printMedians(res);
const pairs = res.version.filter((v, i) => v < res.docs[i]).length;
console.log(`version below docs in ${pairs} of ${rounds} rounds; text below docs in ${res.text.filter((v, i) => v < res.docs[i]).length}`);
await db.client.end();
