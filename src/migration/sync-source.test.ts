import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { SourceClient, SourceError, type SourceOptions } from './sync-source.ts';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** A fake fetch answering from a list of responses (or errors), recording each call. */
function fakeFetch(answers: (Response | Error)[]): { fetchImpl: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), method: init?.method ?? 'GET', headers: { ...(init?.headers as Record<string, string>) } });
    const a = answers.shift();
    if (!a) throw new Error('no more answers');
    if (a instanceof Error) throw a;
    return a;
  }) as typeof fetch;
  return { fetchImpl, calls };
}

const json = (status: number, body: unknown, type = 'application/json') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });

function client(answers: (Response | Error)[], extra: Partial<SourceOptions> = {}) {
  const f = fakeFetch(answers);
  const retries: string[] = [];
  const c = new SourceClient({
    baseUrl: 'https://src.example.com/1.1/',
    appId: 'app',
    appKey: 'key',
    masterKey: 'master',
    backoffMs: 1,
    fetchImpl: f.fetchImpl,
    onRetry: (r) => retries.push(r.reason),
    ...extra,
  });
  return { c, calls: f.calls, retries };
}

test('GET only, master-signed like the SDKs, query values JSON-encoded', async () => {
  const { c, calls } = client([json(200, { results: [], cursor: null })]);
  const before = Date.now();
  await c.get('scan/classes/Post', { limit: 1000, where: { a: 1 }, cursor: undefined });
  const [call] = calls;
  assert.equal(call.method, 'GET');
  const url = new URL(call.url);
  assert.equal(url.origin + url.pathname, 'https://src.example.com/1.1/scan/classes/Post');
  assert.equal(url.searchParams.get('where'), '{"a":1}');
  assert.equal(url.searchParams.has('cursor'), false);
  assert.equal(call.headers['X-LC-Id'], 'app');
  const [sig, ts, master] = call.headers['X-LC-Sign'].split(',');
  assert.equal(master, 'master');
  assert.ok(Number(ts) >= before && Number(ts) <= Date.now());
  assert.equal(sig, createHash('md5').update(ts + 'master').digest('hex'));
  assert.equal(call.headers['X-LC-Key'], undefined);
});

test('--auth key sends X-LC-Key; the app key is used when master is false', async () => {
  const { c, calls } = client([json(200, {}), json(200, {})], { auth: 'key' });
  await c.get('date');
  await c.get('date', {}, false);
  assert.equal(calls[0].headers['X-LC-Key'], 'master,master');
  assert.equal(calls[1].headers['X-LC-Key'], 'key');
});

test('5xx, 429 and network errors are retried with backoff, each attempt freshly signed', async () => {
  const { c, calls, retries } = client([json(503, { code: 1 }), new TypeError('fetch failed'), json(429, {}), json(200, { ok: 1 })]);
  assert.deepEqual(await c.get('date'), { ok: 1 });
  assert.equal(calls.length, 4);
  assert.equal(retries.length, 3);
  assert.match(retries[0], /HTTP 503/);
  assert.match(retries[1], /fetch failed/);
  // A new timestamp per attempt (backoff >= 1 ms apart): a retry never reuses an old signature.
  assert.equal(new Set(calls.map((x) => x.headers['X-LC-Sign'])).size, 4);
});

test('after the last attempt the error says what failed', async () => {
  const { c } = client([json(500, {}), json(500, {}), json(500, {})], { attempts: 3 });
  await assert.rejects(c.get('schemas'), (e: unknown) => e instanceof SourceError && /failed after 3 attempts: HTTP 500/.test(e.message));
});

test('401 is not retried and names the key to check', async () => {
  const { c, calls } = client([json(401, { code: 401, error: 'Unauthorized.' }), json(401, { code: 401, error: 'Unauthorized.' })]);
  await assert.rejects(c.get('schemas'), /refused the master key \(401 Unauthorized\.\)\. Check --app-id and --master-key\. Master-key signatures/);
  await assert.rejects(c.get('date', {}, false), /refused the app id and app key .*--app-key/);
  assert.equal(calls.length, 2);
});

test('an answer that is not the API JSON is refused clearly', async () => {
  const { c } = client([new Response('<html>hi</html>', { status: 200, headers: { 'content-type': 'text/html' } }), json(200, [1, 2])]);
  await assert.rejects(c.get('date'), /HTTP 200 with text\/html that is not JSON .*Is --from the API base URL/);
  await assert.rejects(c.get('date'), /not a JSON object/);
});

test('API errors carry their code (the cursor fallback relies on 102)', async () => {
  const { c } = client([json(400, { code: 102, error: 'Invalid scan cursor: expired' })]);
  await assert.rejects(c.get('scan/classes/A'), (e: unknown) => e instanceof SourceError && e.code === 102 && e.status === 400);
});

test('--from must be an http(s) URL', () => {
  assert.throws(() => new SourceClient({ baseUrl: 'ftp://x', appId: 'a', appKey: 'b', masterKey: 'c' }), /http\(s\) URL/);
  assert.throws(() => new SourceClient({ baseUrl: 'not a url', appId: 'a', appKey: 'b', masterKey: 'c' }), /must be a URL/);
});
