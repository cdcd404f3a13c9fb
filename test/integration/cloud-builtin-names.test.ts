// Built-in names (issue 12 item 2) on the cloud code paths: every name on Object.prototype as a
// cloud function name (/functions and /call) is forwarded or refused with a clear error, never a
// 500; a class with such a name gets no hook call the engine did not list (a hook table read as
// a plain object would find Object.prototype.toString as the "beforeSave of toString").
//
// The engine is a stand-in HTTP server that records what it is asked: the test is about what
// Larder sends, which the real SDK would hide.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CloudCode } from '../../src/cloud/cloud-code.ts';
import { createLogger } from '../../src/log.ts';
import { testCloudOptions } from './harness/engine-app.ts';
import { engines, startHarness, type Harness } from './harness/engines.ts';

const NAMES = Object.getOwnPropertyNames(Object.prototype);
/** The names a class may have (class names start with a letter). */
const CLASS_NAMES = NAMES.filter((n) => /^[A-Za-z]/.test(n));

/** Answers every function with its own name; lists one hook (beforeSave of Hooked). */
function echoEngine(asked: string[]): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    res.setHeader('content-type', 'application/json');
    if (url.startsWith('/1.1/functions/_ops/metadatas')) return res.end(JSON.stringify({ result: ['__before_save_for_Hooked', 'echo'] }));
    asked.push(url);
    const hook = /^\/1\.1\/functions\/([^/]+)\/beforeSave$/.exec(url);
    if (hook) return res.end(JSON.stringify({ n: 1, hooked: true }));
    const fn = /^\/1\.1\/(?:functions|call)\/([^/?]+)$/.exec(url);
    return res.end(JSON.stringify({ result: decodeURIComponent(fn?.[1] ?? '') }));
  });
}

for (const engine of engines()) {
  describe(`built-in names on the cloud code paths [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let fake: http.Server;
    const asked: string[] = [];
    before(async () => {
      fake = echoEngine(asked);
      await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
      const cloud = new CloudCode(testCloudOptions(`http://127.0.0.1:${(fake.address() as AddressInfo).port}`), createLogger('silent'));
      h = await startHarness(engine, { cloud });
      await cloud.refresh(h.app);
    });
    after(async () => {
      await h?.stop();
      fake.closeAllConnections();
      await new Promise((r) => fake.close(r));
    });

    test('every such name as a function name: forwarded as itself or a clear 4xx, never a 500', async () => {
      for (const name of NAMES) {
        for (const path of [`/1.1/functions/${encodeURIComponent(name)}`, `/1.1/call/${encodeURIComponent(name)}`]) {
          const res = await h.client.post(path, { a: 1 });
          assert.ok(res.status < 500, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
          if (res.status === 200) assert.equal(res.body.result, name, path);
          else assert.equal(typeof res.body.code, 'number', `${path}: ${res.text.slice(0, 200)}`);
        }
      }
      // The ones the engine answered were asked under their own name.
      assert.ok(asked.some((u) => u === '/1.1/functions/toString'), asked.slice(0, 5).join(' '));
    });

    test('classes with such names get no hook the engine did not list; the listed one still runs', async () => {
      asked.length = 0;
      for (const name of CLASS_NAMES) {
        const res = await h.client.post(`/1.1/classes/${name}`, { n: 1 });
        assert.equal(res.status, 201, `${name}: ${res.text.slice(0, 200)}`);
        const id = res.body.objectId as string;
        assert.equal((await h.client.put(`/1.1/classes/${name}/${id}`, { n: 2 })).status, 200, name);
        assert.equal((await h.client.delete(`/1.1/classes/${name}/${id}`)).status, 200, name);
      }
      assert.deepEqual(asked, [], 'no hook call for a class the engine lists none for');
      const hooked = await h.client.post('/1.1/classes/Hooked', { n: 0 });
      assert.equal(hooked.status, 201, hooked.text);
      assert.deepEqual(asked, ['/1.1/functions/Hooked/beforeSave']);
    });
  });
}
