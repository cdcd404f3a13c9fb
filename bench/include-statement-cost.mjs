/**
 * `node bench/include-statement-cost.mjs <database url> [rounds 8] [executions 200]`
 *
 * PostgreSQL backend CPU per execution (/proc/<pid>/schedstat, so run it on the database's machine)
 * of variants of h's joint statement (page + owners, src/objects/page-includes.ts) on a database
 * the peer bench seeded (schema `larder`): as of 2026-11-27 12:30 (`base`), with each page row's
 * pointer text as a column (`ptr`), with the owners' stripped fields left out in SQL (`strip`, what
 * is used), and both. One connection, named (prepared) statements, variants interleaved, random
 * windows of `n`. docs/benchmarks.md, "Include answered by splicing text".
 */
import { PAGE, STRIP, measureVariants, openBackend, pageRows, printMedians } from './statement-cost-lib.mjs';
const db = await openBackend(process.argv[2]);
const owners = (data, extraNull) => `SELECT $6::int, "objectId", "createdAt", "updatedAt", ${data}${extraNull} FROM "_User" WHERE "objectId" = ANY(ARRAY(SELECT p.ptr_0->>'objectId' FROM page p WHERE p.ptr_0->>'__type' = 'Pointer' AND p.ptr_0->>'className' = $7::text)) AND rperm && '{*}'::text[]`;
// Each page row's pointer text as a column (`ptr`, `both`).
const ptr = ', CASE WHEN octet_length(p.data_text) <= $5 THEN left(p.ptr_0::text, 256) END AS ptr_0';
const V = {
  base: [`${PAGE} ${pageRows()} ${owners('data::text', '')}`, []],
  ptr: [`${PAGE} ${pageRows(ptr)} ${owners('data::text', ', NULL::text')}`, []],
  strip: [`${PAGE} ${pageRows()} ${owners('(data - $8::text[])::text', '')}`, [STRIP]],
  both: [`${PAGE} ${pageRows(ptr)} ${owners('(data - $8::text[])::text', ', NULL::text')}`, [STRIP]],
};
const rounds = Number(process.argv[3] ?? 8), per = Number(process.argv[4] ?? 200);
printMedians(await measureVariants(db, V, rounds, per));
await db.client.end();
