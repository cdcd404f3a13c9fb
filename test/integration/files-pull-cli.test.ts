/**
 * The real `larder files pull` command (`node bin/larder.js files pull`, a child process)
 * against a local HTTP server playing LeanCloud's file domain (a test double: plain, redirecting
 * and missing files). Rows are seeded in the database the command then opens; what it did is read
 * back from the database and the file store. Exit statuses, the dry run's listing, `file: reason`
 * lines, the summary, and an idempotent second run. On every engine.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { LocalDiskStore } from '../../src/modules/files/local-disk-store.ts';
import { sql } from '../../src/sql/fragment.ts';
import { withCommandDb } from './harness/command-database.ts';
import { forEachEngine } from './harness/engines.ts';
import { tempDir } from './harness/import-helpers.ts';
import { dropTestSchemas, runBin } from './harness/larder-process.ts';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const FILES: Record<string, Buffer> = { 'a.txt': Buffer.from('alpha file'), 'b.bin': Buffer.alloc(70_000, 5) };
const PUBLIC_URL = 'https://larder.example';
const schemas: string[] = [];

/** The file domain double: /ok/<name>, /redirect/<name> (302 to /ok), anything else 404. */
function fileDomain(): Server {
  return createServer((req, res) => {
    const [, kind, name] = (req.url ?? '').split('/');
    const body = FILES[name];
    if (kind === 'ok' && body) return res.writeHead(200, { 'content-length': body.length }).end(body);
    if (kind === 'redirect') return res.writeHead(302, { location: `/ok/${name}` }).end();
    res.writeHead(404).end('no such file');
  });
}

// Schemas of runs whose own cleanup did not happen (a failed assertion).
after(() => dropTestSchemas(schemas));

forEachEngine('larder files pull (the command, bin/larder.js)', (h) => {
  let domain: Server;
  let origin: string;
  let env: Record<string, string>;
  let filesDir: string;

  before(async () => {
    domain = fileDomain();
    await new Promise<void>((r) => domain.listen(0, '127.0.0.1', r));
    const addr = domain.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    origin = `http://127.0.0.1:${addr.port}`;
    filesDir = tempDir('larder-pull-cli-files-');
    const schema = `t_pull_${randomBytes(5).toString('hex')}`;
    if (h().engine === 'postgres') schemas.push(schema);
    env = {
      ...(h().engine === 'pglite' ? { LARDER_DATA_DIR: tempDir('larder-pull-cli-') } : { DATABASE_URL: process.env.TEST_DATABASE_URL ?? '', LARDER_DB_SCHEMA: schema }),
      LARDER_FILES_DIR: filesDir,
      LARDER_PUBLIC_URL: PUBLIC_URL,
    };
    await withCommandDb(env, async (db) => {
      const insert = async (id: string, name: string, url: string, meta: Record<string, unknown>) => {
        const data = { name, url, mime_type: 'application/octet-stream', bucket: 'lc', metaData: { owner: 'unknown', ...meta } };
        await db.query(sql`INSERT INTO "_File" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
          VALUES (${id}, now(), now(), '{"*":{"read":true}}'::jsonb, ${['*']}::text[], ${[]}::text[], ${JSON.stringify(data)}::jsonb)`);
      };
      await insert('c000000000000000000000a1', 'a.txt', `${origin}/ok/a.txt`, { size: FILES['a.txt'].length, _checksum: md5(FILES['a.txt']) });
      await insert('c000000000000000000000b2', 'b.bin', `${origin}/redirect/b.bin`, { size: FILES['b.bin'].length });
      await insert('c000000000000000000000d4', 'gone.bin', `${origin}/missing/gone.bin`, { size: 3 });
    });
  });
  after(async () => {
    domain.closeAllConnections();
    await new Promise((r) => domain.close(r));
  });

  test('--help is exit 0; an unknown option and a missing public url are exit 2', async () => {
    const help = await runBin(['files', '--help'], {});
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: larder files pull/);
    const bad = await runBin(['files', 'pull', '--no-such-option', '1'], env);
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /unknown option --no-such-option/);
    const noUrl = await runBin(['files', 'pull'], { ...env, LARDER_PUBLIC_URL: '' });
    assert.equal(noUrl.status, 2, noUrl.stderr);
    assert.match(noUrl.stderr, /LARDER_PUBLIC_URL/);
  });

  test('--dry-run lists what would move and changes nothing', async () => {
    const res = await runBin(['files', 'pull', '--dry-run'], env);
    assert.equal(res.status, 0, res.stdout + res.stderr);
    for (const id of ['c000000000000000000000a1', 'c000000000000000000000b2', 'c000000000000000000000d4']) assert.match(res.stdout, new RegExp(`^${id}  \\d+  http`, 'm'));
    assert.match(res.stdout, /dry run: 3 files .* would move; 0 are already stored here\. Nothing was changed\./);
    const urls = await withCommandDb(env, (db) => db.query<{ url: string }>(sql`SELECT data->>'url' AS url FROM "_File"`));
    assert.ok(urls.every((r) => r.url.startsWith(origin)));
  });

  test('a pull moves the files, follows the redirect, names each failure; exit 1, then an idempotent second run', async () => {
    const res = await runBin(['files', 'pull', '--retries', '0', '--backoff-ms', '0', '--concurrency', '2'], env);
    assert.equal(res.status, 1, res.stdout + res.stderr);
    assert.match(res.stderr, /^error: c000000000000000000000d4 gone\.bin: .*HTTP 404/m);
    assert.match(res.stdout, /moved 2 files \(0\.1 MB\) in [\d.]+ s; 1 failed; 0 were already stored here\./);
    assert.match(res.stdout, /Run 'larder files pull' again to retry the failed files\./);

    const rows = await withCommandDb(env, (db) => db.query<{ id: string; url: string; size: string; md5: string; blob: string | null }>(sql`SELECT f."objectId" AS id, f.data->>'url' AS url,
      f.data->'metaData'->>'size' AS size, f.data->'metaData'->>'_checksum' AS md5, l.blob FROM "_File" f LEFT JOIN _larder_files l ON l.object_id = f."objectId" ORDER BY 1`));
    const store = await LocalDiskStore.open(filesDir);
    try {
      for (const [row, name] of [[rows[0], 'a.txt'], [rows[1], 'b.bin']] as const) {
        assert.ok(row.url.startsWith(`${PUBLIC_URL}/files/`), row.url);
        assert.equal(Number(row.size), FILES[name].length);
        assert.equal(row.md5, md5(FILES[name]));
        assert.ok(row.blob, `${name} has its bytes in the store`);
        const chunks: Buffer[] = [];
        for await (const c of (await store.read(row.blob))!) chunks.push(c as Buffer);
        assert.deepEqual(Buffer.concat(chunks), FILES[name]);
      }
      assert.ok(rows[2].url.startsWith(origin), 'the failed file keeps its url');
    } finally {
      await store.close();
    }

    const again = await runBin(['files', 'pull', '--retries', '0', '--backoff-ms', '0'], env);
    assert.equal(again.status, 1, again.stdout + again.stderr);
    assert.match(again.stdout, /moved 0 files \(0\.0 MB\) in [\d.]+ s; 1 failed; 2 were already stored here\./);
  });
});
