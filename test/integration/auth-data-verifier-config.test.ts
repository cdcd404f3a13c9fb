// authData verifiers configured by LARDER_AUTH_DATA_VERIFIERS: a real webhook on 127.0.0.1 and a
// real module file, installed on the app the way `larder serve` installs them.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { webhookSignature } from '../../src/sms/webhook-sender.ts';
import { setAuthDataVerifier } from '../../src/users/auth-data-verifier.ts';
import { verifiersFromConfig } from '../../src/users/auth-data-verifier-config.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { assertError } from './harness/user-helpers.ts';
import { freePort, runLarder } from './harness/larder-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'larder-verifiers-'));
let hook: Server;
let hookUrl = '';
const calls: { body: Record<string, unknown>; headers: IncomingMessage['headers'] }[] = [];
before(async () => {
  hook = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const body = JSON.parse(text) as { uid: string; authData: { access_token?: string } };
      calls.push({ body, headers: req.headers });
      if (req.url === '/slow') return; // never answers
      if (req.url === '/broken') return void res.writeHead(500).end('{"valid":true}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ valid: body.authData.access_token === `good-${body.uid}` }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const a = hook.address();
  hookUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  writeFileSync(join(dir, 'verify.mjs'), 'export default async function verify({ uid, data }) { return data.token === uid.split("").reverse().join(""); }\n');
});
after(() => {
  hook.closeAllConnections();
  hook.close();
  rmSync(dir, { recursive: true, force: true });
});

function login(h: Harness, authData: unknown) {
  return h.client.request({ method: 'POST', url: '/1.1/users', body: { authData } });
}

async function install(h: Harness, config: Record<string, unknown>): Promise<() => void> {
  const verifiers = await verifiersFromConfig(JSON.stringify(config), createLogger('silent'));
  for (const [p, v] of verifiers) setAuthDataVerifier(h.app, p, v);
  return () => {
    for (const p of verifiers.keys()) setAuthDataVerifier(h.app, p, undefined);
  };
}

forEachEngine('users: authData verifiers from configuration', (h) => {
  test('a webhook decides (signed when a secret is set); 251 and nothing written when it says no', async () => {
    const remove = await install(h(), { hookgame: { url: `${hookUrl}/check`, secret: 'hook-secret' } });
    try {
      calls.length = 0;
      assertError(await login(h(), { hookgame: { uid: 'u1', access_token: 'forged' } }), 400, 251);
      assert.equal((await login(h(), { hookgame: { uid: 'u1', access_token: 'good-u1' } })).status, 201);
      assert.equal(calls.length, 2);
      const last = calls[1];
      assert.deepEqual(last.body, { platform: 'hookgame', uid: 'u1', authData: { uid: 'u1', access_token: 'good-u1' } });
      const ts = String(last.headers['x-larder-timestamp']);
      assert.equal(last.headers['x-larder-signature'], webhookSignature('hook-secret', ts, JSON.stringify(last.body)));
    } finally {
      remove();
    }
  });

  test('a webhook that fails is no "yes": a 500 rejects (251), no answer in time is 503', async () => {
    const remove = await install(h(), { brokengame: `${hookUrl}/broken`, slowgame: { url: `${hookUrl}/slow`, timeoutMs: 200 } });
    try {
      assertError(await login(h(), { brokengame: { uid: 'u2', access_token: 'good-u2' } }), 400, 251);
      const slow = await login(h(), { slowgame: { uid: 'u3', access_token: 'good-u3' } });
      assert.equal(slow.status, 503, JSON.stringify(slow.body));
    } finally {
      remove();
    }
  });

  test('a module verifier is loaded from its path', async () => {
    const remove = await install(h(), { modgame: { module: join(dir, 'verify.mjs') } });
    try {
      assertError(await login(h(), { modgame: { uid: 'abc', access_token: 'x', token: 'abc' } }), 400, 251);
      const good = await login(h(), { modgame: { uid: 'abc', access_token: 'x', token: 'cba' } });
      assert.equal(good.status, 201, JSON.stringify(good.body));
    } finally {
      remove();
    }
  });
});

test('a broken setting or module stops the start with exit 2 and a clear message', async () => {
  const bad = runLarder([], { LARDER_DATA_DIR: dir, LARDER_PORT: String(await freePort()), LARDER_AUTH_DATA_VERIFIERS: '{"x":"nope"}' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /LARDER_AUTH_DATA_VERIFIERS \(x\) is not a URL/);
  writeFileSync(join(dir, 'empty.mjs'), 'export const nothing = 1;\n');
  const noExport = runLarder([], { LARDER_DATA_DIR: join(dir, 'data2'), LARDER_PORT: String(await freePort()), LARDER_AUTH_DATA_VERIFIERS: JSON.stringify({ y: { module: join(dir, 'empty.mjs') } }) });
  assert.equal(noExport.status, 2, noExport.stderr);
  assert.match(noExport.stderr, /must export a verify function/);
});
