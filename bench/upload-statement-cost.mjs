/**
 * `node bench/upload-statement-cost.mjs [rounds 8] [uploads per round 300] [variants...]`
 *
 * The embedded engine's CPU per upload statement, in process: PGlite on a temporary data
 * directory (NodeFS, as the server's worker mounts it), the files module's two tables as the
 * server makes them (`_File` with its primary key, GIN rperm and the two time indexes; and
 * `_larder_files`), each statement sent as the worker sends a prepared one, by the worker's own
 * code (src/storage/pglite-messages.mjs: Parse once, then Bind/Describe/Execute/Sync in one call
 * into PGlite). CPU is this thread's, from
 * /proc/thread-self/schedstat (ns; PGlite's file writes are synchronous, so they count here).
 *
 * Per upload: the token's statement (the `_larder_files` row and the `_File` record in one
 * `WITH ... INSERT`, as createFileRecord sends it) and the commit (commitUpload), timed apart.
 * Variants of the commit, each on its own fresh pair of tables, interleaved round by round:
 * - base: as main sends it (the `_File` row's metaData and "updatedAt" change);
 * - noupd: the same without "updatedAt" (no indexed column of `_File` changes, so the update may
 *   be HOT: no new entry in any of its four indexes);
 * - fileonly: the `_larder_files` row only (what a commit that left `_File` alone would cost);
 * - nolock: as base without the `FOR UPDATE` of the `_File` row (what the lock costs; not a
 *   variant the server could send as it is: the lock orders the commit after a running delete).
 * docs/benchmarks.md, "Files".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { namedStatement } from '../src/storage/pglite-messages.mjs';

const rounds = Number(process.argv[2] ?? 8);
const per = Number(process.argv[3] ?? 300);
const only = process.argv.slice(4);
const cpu = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);

function tables(suffix, opts = {}) {
  const f = `"_File${suffix}"`;
  return `CREATE TABLE ${f} ("objectId" text PRIMARY KEY, "createdAt" timestamptz NOT NULL, "updatedAt" timestamptz NOT NULL, acl jsonb, rperm text[] NOT NULL, wperm text[] NOT NULL, data jsonb NOT NULL DEFAULT '{}'::jsonb);
    CREATE INDEX ON ${f} USING gin (rperm) WITH (fastupdate = off);
    CREATE INDEX ON ${f} ("createdAt");
    CREATE INDEX ON ${f} ("updatedAt");
    ${opts.fillfactor ? `ALTER TABLE ${f} SET (fillfactor = ${opts.fillfactor});` : ''}
    CREATE TABLE _larder_files${suffix} (object_id text PRIMARY KEY, key text NOT NULL UNIQUE, blob text NOT NULL, state text NOT NULL, token_hash text UNIQUE,
      mime_type text NOT NULL, name text NOT NULL, size bigint, md5 text, expires_at timestamptz NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), created_at timestamptz NOT NULL DEFAULT now());`;
}

const insertText = (sfx) => `WITH before_insert AS (INSERT INTO _larder_files${sfx} (object_id, key, blob, state, token_hash, mime_type, name, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))) INSERT INTO "_File${sfx}" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES ($9, $10::timestamptz, $11::timestamptz, $12::jsonb, $13::text[], $14::text[], $15::jsonb)`;

const commitText = (sfx, variant) => {
  const record = `record AS (SELECT "objectId" FROM "_File${sfx}" WHERE "objectId" = $1${variant === 'nolock' ? '' : ' FOR UPDATE'})`;
  const file = `file AS (UPDATE _larder_files${sfx} SET state = 'committed', size = $2, md5 = $3, updated_at = now()
      WHERE object_id = $4 AND state = ANY($5::text[]) AND EXISTS (SELECT 1 FROM record)
        AND ($6::timestamptz IS NULL OR expires_at > $7::timestamptz) RETURNING object_id)`;
  if (variant === 'fileonly') return `WITH ${record}, ${file} SELECT (SELECT count(*) FROM file) AS committed, EXISTS (SELECT 1 FROM record) AS present, $8::jsonb IS NULL AS x`;
  const upd = variant === 'noupd' ? '' : ', "updatedAt" = now()';
  return `WITH ${record}, ${file},
    updated AS (UPDATE "_File${sfx}" SET data = jsonb_set(data, '{metaData}', COALESCE(data->'metaData', '{}'::jsonb) || $8::jsonb)${upd}
      WHERE "objectId" IN (SELECT object_id FROM file) RETURNING "objectId")
    SELECT (SELECT count(*) FROM updated) AS committed, EXISTS (SELECT 1 FROM record) AS present`;
};

const names = new Map();
async function run(db, text, values) {
  let name = names.get(text);
  const first = name === undefined;
  if (first) {
    name = `s${names.size}`;
    names.set(text, name);
  }
  let err;
  await db.execProtocolRawStream(namedStatement(name, first ? text : undefined, values), {
    syncToFs: false,
    onRawData: (b) => {
      if (b[0] === 0x45) err = new TextDecoder().decode(b);
    },
  });
  if (err) throw new Error(err);
}

const id = () => randomBytes(8).toString('hex').slice(0, 10);
const VARIANTS = { base: {}, noupd: {}, fileonly: {}, ff90: { fillfactor: 90 }, nolock: {} };
const chosen = only.length ? only : ['base', 'noupd', 'fileonly'];

const dir = mkdtempSync(join(tmpdir(), 'larder-upload-stmt-'));
const db = await PGlite.create({ fs: new NodeFS(dir) });
try {
  const res = Object.fromEntries(chosen.map((k) => [k, { ins: [], com: [] }]));
  for (const k of chosen) await db.exec(tables(`_${k}`, VARIANTS[k]));
  const acl = JSON.stringify({ '*': { read: true, write: true } });
  const upload = async (k) => {
    const sfx = `_${k}`;
    const o = id();
    const key = `${randomBytes(12).toString('hex')}.bin`;
    const now = new Date().toISOString();
    const data = JSON.stringify({ name: 'f.bin', url: `http://127.0.0.1:1/files/${key}`, key, bucket: 'larder', mime_type: 'application/octet-stream', provider: 'larder', metaData: { owner: 'unknown', size: 1048576 } });
    const c0 = cpu();
    await run(db, insertText(sfx), [o, key, `ab/${id()}`, 'pending', randomBytes(32).toString('hex'), 'application/octet-stream', 'f.bin', 3600, o, now, now, acl, ['*'], ['*'], data]);
    const c1 = cpu();
    await run(db, commitText(sfx, k === 'ff90' ? 'base' : k), [o, 1048576, randomBytes(16).toString('hex'), o, ['pending', 'uploading'], null, null, JSON.stringify({ size: 1048576, _checksum: 'x' })]);
    const c2 = cpu();
    return [c1 - c0, c2 - c1];
  };
  // Warm-up: plans, caches, the WebAssembly's tiers.
  for (const k of chosen) for (let i = 0; i < 100; i++) await upload(k);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...chosen].reverse() : chosen;
    for (const k of order) {
      let ins = 0;
      let com = 0;
      for (let i = 0; i < per; i++) {
        const [a, b] = await upload(k);
        ins += a;
        com += b;
      }
      res[k].ins.push(ins / per / 1000);
      res[k].com.push(com / per / 1000);
    }
  }
  const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  for (const k of chosen) {
    console.log(`${k}: token insert median ${med(res[k].ins).toFixed(0)} us [${res[k].ins.map((v) => v.toFixed(0)).join(' ')}]; commit median ${med(res[k].com).toFixed(0)} us [${res[k].com.map((v) => v.toFixed(0)).join(' ')}]`);
  }
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
