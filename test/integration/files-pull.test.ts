// `larder files pull` against a local HTTP server playing LeanCloud's file domain: plain,
// redirecting, flaky (503 then 200), stalling, slow-but-steady, missing and corrupt answers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { filesServiceOf } from '../../src/modules/files/files-service.ts';
import { pullFiles, type PullOptions } from '../../src/modules/files/pull/pull-files.ts';
import { sql } from '../../src/sql/fragment.ts';
import { forEachEngine } from './harness/engines.ts';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const FILES: Record<string, Buffer> = {
  'a.txt': Buffer.from('alpha file'),
  'b.png': Buffer.alloc(50_000, 7),
  'c.bin': Buffer.from([1, 2, 3]),
  'steady.bin': Buffer.alloc(40_000, 3),
};

/** The fake file domain; counts requests per path. */
function fileDomain(): { server: Server; hits: Map<string, number> } {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const [, kind, name] = path.split('/');
    const body = FILES[name];
    if (kind === 'ok' && body) return res.writeHead(200, { 'content-length': body.length }).end(body);
    if (kind === 'redirect') return res.writeHead(302, { location: `/ok/${name}` }).end();
    if (kind === 'flaky' && body) {
      if ((hits.get(path) ?? 0) <= 2) return res.writeHead(503).end('busy');
      return res.writeHead(200).end(body);
    }
    if (kind === 'stall') {
      res.writeHead(200, { 'content-length': 100 });
      res.write(Buffer.alloc(10));
      return; // never finishes
    }
    if (kind === 'steady' && body) {
      // 10 chunks 250 ms apart: 2.5 s in all, longer than the 1.5 s idle timeout, yet never idle
      // for that long (a wide margin, so that a busy machine does not turn it into a stall).
      res.writeHead(200);
      Readable.from((async function* () {
        for (let i = 0; i < 10; i++) {
          await new Promise((r) => setTimeout(r, 250));
          yield body.subarray(i * 4000, (i + 1) * 4000);
        }
      })()).pipe(res);
      return;
    }
    res.writeHead(404).end('no such file');
  });
  return { server, hits };
}

forEachEngine('larder files pull', (h) => {
  let domain: ReturnType<typeof fileDomain>;
  let origin: string;
  let base: string;

  const insertFile = async (id: string, name: string, url: string, meta: Record<string, unknown>, key?: string) => {
    const data = { name, url, key, mime_type: 'application/octet-stream', bucket: 'lc', metaData: { owner: 'unknown', ...meta } };
    await h().db.query(sql`INSERT INTO "_File" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES (${id}, now(), now(), '{"*":{"read":true}}'::jsonb, ${['*']}::text[], ${[]}::text[], ${JSON.stringify(data)}::jsonb)`);
  };
  const options = (extra: Partial<PullOptions> = {}): PullOptions => {
    const svc = filesServiceOf(h().app);
    assert.ok(svc);
    return { db: h().db, store: svc.store, filesBaseUrl: `${base}/files`, maxBytes: 1_000_000, concurrency: 3, dryRun: false, retries: 3, idleTimeoutMs: 1500, backoffMs: 5, ...extra };
  };
  const record = async (id: string) => (await h().client.get(`/1.1/files/${id}`, undefined, { master: true })).body;

  before(async () => {
    domain = fileDomain();
    await new Promise<void>((r) => domain.server.listen(0, '127.0.0.1', r));
    const addr = domain.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    origin = `http://127.0.0.1:${addr.port}`;
    base = await h().listen();
    await insertFile('f0000000000000000000000a', 'a.txt', `${origin}/ok/a.txt`, { size: 10, _checksum: md5(FILES['a.txt']) }, 'lcKey123.txt');
    await insertFile('f0000000000000000000000b', 'b.png', `${origin}/redirect/b.png`, { size: 50_000 });
    await insertFile('f0000000000000000000000c', 'c.bin', `${origin}/flaky/c.bin`, {}, '../../etc/passwd');
    await insertFile('f0000000000000000000000d', 'd.bin', `${origin}/missing/d.bin`, { size: 5 });
    await insertFile('f0000000000000000000000e', 'e.bin', `${origin}/stall/e.bin`, {});
    await insertFile('f0000000000000000000000f', 'f.txt', `${origin}/ok/a.txt`, { _checksum: '0'.repeat(32) });
    await insertFile('f0000000000000000000000g', 'steady.bin', `${origin}/steady/steady.bin`, { size: 40_000 });
    // An external file (saved by URL by the app) stays where it is.
    await insertFile('f0000000000000000000000h', 'ext.png', `${origin}/ok/a.txt`, { __source: 'external' });
  });
  after(async () => {
    domain.server.closeAllConnections();
    await new Promise((r) => domain.server.close(r));
  });

  test('--dry-run lists what would move and changes nothing', async () => {
    const listed: string[] = [];
    const s = await pullFiles(options({ dryRun: true, listed: (c) => listed.push(c.object_id) }));
    assert.equal(s.wouldMove, 7);
    assert.equal(listed.length, 7);
    assert.equal(listed.includes('f0000000000000000000000h'), false);
    assert.equal(domain.hits.size, 0, 'no download');
    assert.match((await record('f0000000000000000000000a')).url, /\/ok\/a\.txt$/);
  });

  test('a pull moves what it can, follows redirects, retries 503s, checks size and md5; failures have reasons', async () => {
    const seen: number[] = [];
    const s = await pullFiles(options({ progress: (p) => seen.push(p.done) }));
    assert.equal(s.moved, 4);
    assert.deepEqual(s.failures.map((f) => f.objectId).sort(), ['f0000000000000000000000d', 'f0000000000000000000000e', 'f0000000000000000000000f']);
    const reason = (id: string) => s.failures.find((f) => f.objectId === id)?.reason ?? '';
    assert.match(reason('f0000000000000000000000d'), /HTTP 404/);
    assert.match(reason('f0000000000000000000000e'), /stalled/);
    assert.match(reason('f0000000000000000000000f'), /md5/);
    assert.equal(domain.hits.get('/missing/d.bin'), 1, '404 is not retried');
    assert.equal(domain.hits.get('/stall/e.bin'), 4, 'a stall is retried (3 retries)');
    assert.equal(domain.hits.get('/flaky/c.bin'), 3);
    assert.deepEqual(seen.slice(-1), [7]);
    const a = await record('f0000000000000000000000a');
    assert.equal(a.url, `${base}/files/lcKey123.txt`, 'a valid original key is kept');
    const c = await record('f0000000000000000000000c');
    assert.match(c.key, /^[A-Za-z0-9]{24}\.bin$/, 'a traversal key is replaced');
    for (const [id, name] of [['f0000000000000000000000a', 'a.txt'], ['f0000000000000000000000b', 'b.png'], ['f0000000000000000000000c', 'c.bin'], ['f0000000000000000000000g', 'steady.bin']]) {
      const r = await record(id);
      const served = Buffer.from(await (await fetch(r.url)).arrayBuffer());
      assert.deepEqual(served, FILES[name], id);
      assert.equal(r.metaData._checksum, md5(FILES[name]));
      assert.equal(r.metaData.size, FILES[name].length);
    }
    const failed = await h().db.query<{ status: string; blob: string | null }>(sql`SELECT status, blob FROM _larder_file_pulls WHERE object_id = 'f0000000000000000000000d'`);
    assert.deepEqual(failed, [{ status: 'failed', blob: null }]);
  });

  test('a second run is idempotent: nothing moved twice, failed files are tried again', async () => {
    const before = domain.hits.get('/ok/a.txt');
    const s = await pullFiles(options({ retries: 0 }));
    assert.equal(s.moved, 0);
    assert.equal(s.failures.length, 3);
    assert.equal(s.alreadyStored, 4);
    assert.equal(domain.hits.get('/ok/a.txt'), (before ?? 0) + 1, 'only the failed f.txt asked again');
  });

  test('a crashed run is resumed: the partial bytes of a file left running are removed first', async () => {
    const svc = filesServiceOf(h().app);
    assert.ok(svc);
    const blob = 'Crashed0000000000000000000000000';
    await svc.store.write(blob, Readable.from([Buffer.from('partial')]), { maxBytes: 100, contentType: 'text/plain' });
    await insertFile('f0000000000000000000000i', 'i.txt', `${origin}/ok/a.txt`, {});
    await h().db.query(sql`INSERT INTO _larder_file_pulls (object_id, status, attempts, blob) VALUES ('f0000000000000000000000i', 'running', 1, ${blob})`);
    const s = await pullFiles(options({ retries: 0 }));
    assert.equal(s.moved, 1);
    assert.equal(await svc.store.stat(blob), undefined);
    assert.deepEqual(Buffer.from(await (await fetch((await record('f0000000000000000000000i')).url)).arrayBuffer()), FILES['a.txt']);
  });
});
