// The requests of a file upload answered before Fastify routes them: POST /1.1/fileTokens and
// /1.1/fileCallback (src/http/api-fast-path.ts) and PUT upload_url (src/modules/files/
// upload-fast-path.ts). Each case goes over real sockets to two servers on one database and
// one files directory, one with the fast paths and one without, with a token made by each
// server for itself; the answers must be the same (status, headers but Date, body; ids,
// tokens, keys and times masked). Then hostile input against the fast path: wrong, used and
// expired tokens, oversized bodies, a refused body left unread, a client that leaves mid-body.
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { rm } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { abandonPut, partFiles, untilUploadLetGo } from './harness/abandoned-upload.ts';
import { engines, TEST_KEYS } from './harness/engines.ts';
import { localFilesOptions, makeFilesDir } from './harness/local-files.ts';
import { comparable, onHandler, routed, sameAnswers, send, startPair, stopPair, type Got, type Pair, type Sent } from './harness/fast-path-pair.ts';

/** Large enough that a refused body is left unread in the connection (more than the socket buffers hold). */
const MAX = 4 * 1024 * 1024;
const KEY = { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey };
const JSON_KEY = { ...KEY, 'content-type': 'application/json' };
const BYTES = { 'content-type': 'application/octet-stream' };

/** Tokens, keys and upload paths are random per server: masked like ids. */
const view = (g: Got) => JSON.parse(JSON.stringify(comparable(g)).replace(/[A-Za-z0-9]{24,}/g, '<random>')) as unknown;
/**
 * The same without Connection and Keep-Alive: a body refused a few bytes before its end may or may not have
 * arrived whole when the answer goes (closed only if not), on either server.
 */
const viewButConnection = (g: Got) => view({ ...g, headers: { ...g.headers, connection: undefined, 'keep-alive': undefined } });

interface Token {
  objectId: string;
  token: string;
  url: string;
  uploadPath: string;
}

for (const engine of engines()) {
  describe(`file uploads before Fastify answer as the routes do [${engine}]`, () => {
    let p: Pair;
    let dir: string;
    /** A token from each server: [plain, fast]. */
    const tokens = async (): Promise<[Token, Token] & { fastRouted?: boolean }> => {
      const make = async (base: string, agent: http.Agent) => {
        const r = await send(base, agent, { method: 'POST', path: '/1.1/fileTokens', headers: JSON_KEY, body: JSON.stringify({ name: 'a.bin', metaData: { size: 10 } }) });
        assert.equal(r.status, 200, r.body);
        const t = JSON.parse(r.body) as { objectId: string; token: string; url: string; upload_url: string };
        return { objectId: t.objectId, token: t.token, url: t.url, uploadPath: new URL(t.upload_url).pathname };
      };
      const plain = await make(p.plainBase, p.plainAgent);
      routed.length = 0;
      const pair: [Token, Token] & { fastRouted?: boolean } = [plain, await make(p.fastBase, p.fastAgent)];
      pair.fastRouted = routed.length > 0;
      return pair;
    };
    /** A PUT of `body` to each server's own token path; who answered on the fast side. */
    const put = async (pair: [Token, Token], body: string | Buffer, extra: Partial<Sent> = {}, suffix = '', v = view) => {
      const req = (t: Token): Sent => ({ method: 'PUT', path: t.uploadPath + suffix, headers: BYTES, body, ...extra });
      const res = await sameAnswers(p, req(pair[0]), req(pair[1]), v);
      return { ...res, who: res.routed ? 'fastify' : 'fast' };
    };
    const state = async (objectId: string) => (await p.fast.db.query<{ state: string }>(sql`SELECT state FROM _larder_files WHERE object_id = ${objectId}`))[0]?.state;

    before(async () => {
      diagnostics.subscribe('tracing:fastify.request.handler:start', onHandler);
      dir = await makeFilesDir('larder-files-fast-');
      p = await startPair(engine, { modules: { files: localFilesOptions(dir, { maxBytes: MAX }) } });
    });
    after(async () => {
      diagnostics.unsubscribe('tracing:fastify.request.handler:start', onHandler);
      await stopPair(p);
      await rm(dir, { recursive: true, force: true });
    });

    test('fileTokens, PUT and fileCallback as the SDKs send them: all three before Fastify, the same answers', async () => {
      const pair = await tokens();
      assert.equal(pair.fastRouted, false, 'fileTokens on the fast server was not routed');
      const up = await put(pair, Buffer.alloc(3000, 7));
      assert.equal(up.got.status, 200, up.got.body);
      assert.equal(up.who, 'fast');
      for (const t of pair) assert.equal(await state(t.objectId), 'committed');
      const callback = (t: Token, result: boolean): Sent => ({ method: 'POST', path: '/1.1/fileCallback', headers: JSON_KEY, body: JSON.stringify({ token: t.token, result }) });
      const cb = await sameAnswers(p, callback(pair[0], true), callback(pair[1], true), view);
      assert.equal(cb.got.status, 200);
      assert.equal(cb.routed, false);
      const got = await fetch(pair[1].url);
      assert.equal(Buffer.from(await got.arrayBuffer()).equals(Buffer.alloc(3000, 7)), true);
      // The used token: 403 on both, from the fast path.
      const again = await put(pair, 'x');
      assert.equal(again.got.status, 403, again.got.body);
      assert.equal(again.who, 'fast');
      const bad = await sameAnswers(p, callback({ ...pair[0], token: 'nope' }, true), callback({ ...pair[1], token: 'nope' }, true), view);
      assert.equal(bad.got.status, 403, bad.got.body);
      const abandon = await tokens();
      const gone = await sameAnswers(p, callback(abandon[0], false), callback(abandon[1], false), view);
      assert.equal(gone.got.status, 200);
    });

    test('fileCallback of a file deleted after its upload: 403 again, as before the callback answered from memory', async () => {
      const pair = await tokens();
      assert.equal((await put(pair, 'bytes')).got.status, 200);
      const callback = (t: Token): Sent => ({ method: 'POST', path: '/1.1/fileCallback', headers: JSON_KEY, body: JSON.stringify({ token: t.token, result: true }) });
      assert.equal((await sameAnswers(p, callback(pair[0]), callback(pair[1]), view)).got.status, 200);
      for (const [t, base, agent] of [[pair[0], p.plainBase, p.plainAgent], [pair[1], p.fastBase, p.fastAgent]] as const) {
        const del = await send(base, agent, { method: 'DELETE', path: `/1.1/files/${t.objectId}`, headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': `${TEST_KEYS.masterKey},master` } });
        assert.equal(del.status, 200, del.body);
      }
      const after = await sameAnswers(p, callback(pair[0]), callback(pair[1]), view);
      assert.equal(after.got.status, 403, after.got.body);
    });

    const cases: [string, () => Promise<{ body: string | Buffer; extra?: Partial<Sent>; suffix?: string; token?: (t: Token) => Token }>, number, 'fast' | 'fastify'][] = [
      ['an unknown token', async () => ({ body: 'abc', token: (t) => ({ ...t, uploadPath: '/larder/upload/NoSuchToken' }) }), 403, 'fast'],
      ['an expired token', async () => ({ body: 'abc', token: (t) => t }), 403, 'fast'],
      ['a declared length over the limit: refused unread, connection closed', async () => ({ body: Buffer.alloc(MAX + 1) }), 413, 'fast'],
      ['a refused token with a body left unread: connection closed', async () => ({ body: Buffer.alloc(MAX / 2, 1), token: (t) => ({ ...t, uploadPath: '/larder/upload/NoSuchToken2' }) }), 403, 'fast'],
      ['an empty body', async () => ({ body: '' }), 200, 'fast'],
      ['a chunked body over the limit', async () => ({ body: Buffer.alloc(MAX + 100), extra: { chunked: true } }), 413, 'fastify'],
      ['a chunked body', async () => ({ body: 'chunks', extra: { chunked: true } }), 200, 'fastify'],
      ['no content type', async () => ({ body: 'abc', extra: { headers: {} } }), 200, 'fastify'],
      ['a compressed body (Fastify decompresses it)', async () => ({ body: gzipSync('abc'), extra: { headers: { ...BYTES, 'content-encoding': 'gzip' } } }), 200, 'fastify'],
      ['a query string', async () => ({ body: 'abc', suffix: '?x=1' }), 200, 'fastify'],
      ['a trailing slash', async () => ({ body: 'abc', suffix: '/' }), 200, 'fastify'],
      ['a token longer than the route takes', async () => ({ body: 'abc', token: (t) => ({ ...t, uploadPath: `/larder/upload/${'a'.repeat(201)}` }) }), 403, 'fastify'],
      ['a percent-encoded token', async () => ({ body: 'abc', token: (t) => ({ ...t, uploadPath: `${t.uploadPath.slice(0, -1)}%${t.uploadPath.charCodeAt(t.uploadPath.length - 1).toString(16)}` }) }), 200, 'fastify'],
    ];
    for (const [what, make, status, who] of cases) {
      test(what, async () => {
        const pair = await tokens();
        const c = await make();
        if (what === 'an expired token') {
          for (const t of pair) await p.fast.db.query(sql`UPDATE _larder_files SET expires_at = now() - interval '1 hour' WHERE object_id = ${t.objectId}`);
        }
        const used = c.token ? ([c.token(pair[0]), c.token(pair[1])] as [Token, Token]) : pair;
        const res = await put(used, c.body, c.extra, c.suffix, what.includes('chunked body over') ? viewButConnection : view);
        assert.equal(res.got.status, status, res.got.body);
        assert.equal(res.who, who);
        if (what.endsWith('connection closed')) assert.equal(res.got.headers.connection, 'close');
        // A refused upload gives its token back (to retry while it is valid).
        if (status === 413) for (const t of pair) assert.equal(await state(t.objectId), 'pending');
      });
    }

    test('a client that leaves mid-body: the token is given back, no temporary file stays, a retry succeeds', async () => {
      const [, t] = await tokens();
      const port = Number(new URL(p.fastBase).port);
      await abandonPut(port, t.uploadPath, 4000, Buffer.alloc(1000, 3), 100);
      // A token this process issued is never claimed in the database (its row stays pending):
      // wait for the temporary file to go, which the server removes before giving the token back.
      await untilUploadLetGo(dir, () => state(t.objectId));
      assert.equal(await state(t.objectId), 'pending');
      assert.deepEqual(await partFiles(dir), []);
      const retry = await send(p.fastBase, p.fastAgent, { method: 'PUT', path: t.uploadPath, headers: BYTES, body: 'whole' });
      assert.equal(retry.status, 200, retry.body);
      assert.equal(await state(t.objectId), 'committed');
    });

    test('a keep-alive client goes on after a refused upload whose body the server did not read (it waited for ever before)', async () => {
      for (const base of [p.fastBase, p.plainBase]) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const refused = await send(base, agent, { method: 'PUT', path: '/larder/upload/NoSuchToken3', headers: BYTES, body: Buffer.alloc(MAX / 2, 2) });
          assert.equal(refused.status, 403);
          const next = await send(base, agent, { method: 'GET', path: '/health/live' });
          assert.equal(next.status, 200);
        } finally {
          agent.destroy();
        }
      }
    });
  });
}
