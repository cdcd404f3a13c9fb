// An error no catalogue entry describes, thrown by a handler the API fast path dispatches to
// (src/http/api-fast-path.ts): the same 500 {code: 1} as the Fastify route gives, and the same
// log line (`unhandled error`, the error, a request id), once per request, on both servers.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/log.ts';
import type { LarderModule } from '../../src/module-api/larder-module.ts';
import { forEachEngine, TEST_KEYS } from './harness/engines.ts';

/** A module with one route under a path the fast path takes, whose handler fails unexpectedly. */
const broken: LarderModule = {
  name: 'broken-for-test',
  routes: () => [{ method: 'GET', path: '/1.1/users/brokenForTest', handler: async () => Promise.reject(new Error('boom from a handler')) }],
};

forEachEngine('API fast path: unexpected errors', (h) => {
  test('answered and logged as the Fastify route answers and logs them', async () => {
    const answers: { status: number; body: string; headers: Record<string, string> }[] = [];
    const logs: Record<string, unknown>[][] = [];
    for (const apiFastPath of [true, false]) {
      const lines: Record<string, unknown>[] = [];
      const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(...String(chunk).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)), done()) });
      const server = await createApp(h().app, { logger: createLogger('error', sink), modules: [broken], apiFastPath });
      try {
        await server.listen({ host: '127.0.0.1', port: 0 });
        const port = (server.server.address() as AddressInfo).port;
        const res = await fetch(`http://127.0.0.1:${port}/1.1/users/brokenForTest`, { headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': TEST_KEYS.appKey } });
        const headers: Record<string, string> = {};
        res.headers.forEach((v, k) => {
          if (k !== 'date') headers[k] = v;
        });
        answers.push({ status: res.status, body: await res.text(), headers });
      } finally {
        await server.close();
      }
      logs.push(lines);
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.equal(answers[0].status, 500);
    assert.equal(JSON.parse(answers[0].body).code, 1);
    for (const lines of logs) {
      const errors = lines.filter((l) => l.msg === 'unhandled error');
      assert.equal(errors.length, 1, JSON.stringify(lines));
      assert.match(String((errors[0].err as { message?: unknown }).message), /boom from a handler/);
      assert.match(String(errors[0].reqId), /^[0-9a-f-]{36}$/);
    }
  });
});
