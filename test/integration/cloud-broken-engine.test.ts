// A broken LeanEngine app (issue 10, issue 12): the engine answers garbage, the wrong shape, a
// huge body, nothing at all, or refuses Larder's key. Larder must answer the client a clear
// {code, error} with the right status, never hang and never write anything half-done.
//
// The engine here is a stand-in HTTP server, not the leanengine SDK: the real SDK cannot be made
// to answer garbage, and garbage is what this test is about. Each class name selects a fault.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CloudCode } from '../../src/cloud/cloud-code.ts';
import { createLogger } from '../../src/log.ts';
import { testCloudOptions } from './harness/engine-app.ts';
import { engines, startHarness, type Harness } from './harness/engines.ts';

const FAULTS = ['NotJson', 'WrongShape', 'Huge', 'Hangs', 'KeyRejected', 'ErrorNoBody', 'Refuses'] as const;
type Fault = (typeof FAULTS)[number];

/** What the client must get for a create in a class whose beforeSave has the fault. */
const EXPECTED: Record<Fault, { status: number; code: number; error: RegExp }> = {
  NotJson: { status: 502, code: 141, error: /not JSON/ },
  WrongShape: { status: 502, code: 141, error: /must answer with the object/ },
  Huge: { status: 502, code: 1, error: /answered more than/ },
  Hangs: { status: 503, code: 141, error: /timed out/ },
  KeyRejected: { status: 502, code: 141, error: /hook key/i },
  ErrorNoBody: { status: 502, code: 141, error: /HTTP 500 and no \{code, error\} body/ },
  Refuses: { status: 400, code: 142, error: /Cloud Code validation failed. Error detail : not today/ },
};

/** The stand-in engine: lists a beforeSave for every fault class and two functions. */
function brokenEngine(): http.Server {
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    if (url.startsWith('/1.1/functions/_ops/metadatas')) {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ result: [...FAULTS.map((f) => `__before_save_for_${f}`), 'slowFn', 'hugeFn'] }));
    }
    const m = /^\/1\.1\/functions\/([A-Za-z]+)(?:\/beforeSave)?$/.exec(url);
    const name = m?.[1] ?? '';
    switch (name) {
      case 'NotJson':
        res.setHeader('content-type', 'text/html');
        return res.end('<html>502 Bad Gateway</html>');
      case 'WrongShape':
        res.setHeader('content-type', 'application/json');
        return res.end('[1, 2, 3]');
      case 'Huge':
        res.setHeader('content-type', 'application/json');
        // 17 MiB of JSON, streamed: past the 16 MiB a hook answer may have.
        res.write('{"pad":"');
        for (let i = 0; i < 17; i++) res.write('x'.repeat(1024 * 1024));
        return res.end('"}');
      case 'KeyRejected':
        res.statusCode = 401;
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ code: 401, error: 'Hook key check failed. request from: 127.0.0.1' }));
      case 'ErrorNoBody':
        res.statusCode = 500;
        return res.end('Internal Server Error');
      case 'Refuses':
        res.statusCode = 400;
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ code: 1, error: 'not today' }));
      case 'hugeFn':
        res.setHeader('content-type', 'application/json');
        res.setHeader('content-length', String(64 * 1024 * 1024));
        return res.write('{"result":"');
      default:
        // Hangs, slowFn: never answer (the test server closes them at the end).
        hanging.push(res);
    }
  });
  server.on('close', () => hanging.forEach((r) => r.destroy()));
  return server;
}

for (const engine of engines()) {
  describe(`a broken cloud code engine gets clear errors and writes nothing [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let fake: http.Server;
    before(async () => {
      fake = brokenEngine();
      await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      // Timeouts long enough that streaming the 17 MiB answers finishes first on a loaded CI
      // machine (at 800 ms a busy run saw the timeout instead of the size limit).
      const cloud = new CloudCode(testCloudOptions(url, { beforeHookTimeoutMs: 4000, functionTimeoutMs: 4000, hookTimeoutMs: 4000 }), createLogger('silent'));
      h = await startHarness(engine, { cloud });
      await cloud.refresh(h.app);
    });
    after(async () => {
      await h?.stop();
      fake.closeAllConnections();
      await new Promise((r) => fake.close(r));
    });

    async function count(className: string): Promise<number> {
      const res = await h.client.get(`/1.1/classes/${className}`, { count: 1, limit: 0 }, { master: true });
      return res.body.count as number;
    }

    for (const fault of FAULTS) {
      test(`beforeSave answers ${fault}: ${EXPECTED[fault].status} code ${EXPECTED[fault].code}, nothing written`, async () => {
        const want = EXPECTED[fault];
        const t0 = Date.now();
        const res = await h.client.post(`/1.1/classes/${fault}`, { n: 1 });
        assert.equal(res.status, want.status, res.text.slice(0, 300));
        assert.equal(res.body.code, want.code, res.text.slice(0, 300));
        assert.match(res.body.error, want.error);
        assert.ok(Date.now() - t0 < 30_000, 'answered, not hung');
        // The same fault inside a batch: that item fails, the others are written.
        const batch = await h.client.post('/1.1/batch', { requests: [
          { method: 'POST', path: `/1.1/classes/${fault}`, body: { n: 2 } },
          { method: 'POST', path: '/1.1/classes/Healthy', body: { fault } },
        ] });
        assert.equal(batch.status, 200, batch.text.slice(0, 300));
        assert.equal(batch.body[0].error?.code, want.code, JSON.stringify(batch.body[0]).slice(0, 300));
        assert.ok(batch.body[1].success?.objectId, JSON.stringify(batch.body[1]));
        assert.equal(await count(fault), 0, 'nothing of the refused creates was written');
      });
    }

    test('a cloud function that never answers: 503 code 124 after the function timeout', async () => {
      const res = await h.client.post('/1.1/functions/slowFn', {});
      assert.equal(res.status, 503, res.text.slice(0, 300));
      assert.equal(res.body.code, 124);
    });

    test('a cloud function answering more than the body limit: 502, not a huge answer', async () => {
      const res = await h.client.post('/1.1/functions/hugeFn', {});
      assert.equal(res.status, 502, res.text.slice(0, 300));
      assert.equal(res.body.code, 1);
      assert.match(res.body.error, /answered more than/);
    });

    test('the server still serves after all of it, and the engine gone is a clear 502', async () => {
      assert.equal((await h.client.get('/health')).status, 200);
      fake.closeAllConnections();
      await new Promise((r) => fake.close(r));
      const res = await h.client.post('/1.1/classes/NotJson', { n: 3 });
      assert.equal(res.status, 502, res.text.slice(0, 300));
      assert.equal(res.body.code, 1);
      assert.match(res.body.error, /did not answer/);
      assert.equal(await count('NotJson'), 0);
      fake = brokenEngine();
    });
  });
}
