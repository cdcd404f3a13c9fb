// Two servers on one database, one answering before Fastify (its fast paths on) and one without
// (apiFastPath: false), and the means to send both the same request over a real socket and
// compare the answers: status, headers (but Date) and body, with ids and times masked.
// Fastify's diagnostics channel tells which requests reached a Fastify route handler.
import assert from 'node:assert/strict';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { startHarness, type Harness } from './engines.ts';

export type Running = Harness & { stop(): Promise<void> };

/** One request as sent: raw path, headers, body; `chunked` sends the body without a length. */
export interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  chunked?: boolean;
}

export interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function send(base: string, agent: http.Agent, r: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(r.headers ?? {}) };
    if (r.body !== undefined && !r.chunked) headers['content-length'] = String(Buffer.byteLength(r.body));
    // The path as it is (a URL string would be normalised: `..` resolved, the fragment dropped).
    const req = http.request({ host: '127.0.0.1', port: new URL(base).port, path: r.path, method: r.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

/** Ids and times a write makes differ between the two servers; everything else must not. */
export function masked(text: string): string {
  return text.replace(/127\.0\.0\.1:\d+/g, '<host>').replace(/\b[0-9a-f]{24}\b/g, '<id>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>');
}

/** A compressed body as its text (two creates compress to different bytes: their ids differ). */
function plainText(g: Got): string {
  const raw = Buffer.from(g.body, 'latin1');
  const encoding = g.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(raw).toString('latin1');
  if (encoding === 'gzip') return gunzipSync(raw).toString('latin1');
  if (encoding === 'deflate') return inflateSync(raw).toString('latin1');
  return g.body;
}

export function comparable(g: Got): { status: number; headers: Record<string, unknown>; body: string } {
  const headers: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(g.headers)) if (k !== 'date') headers[k] = typeof v === 'string' ? masked(v) : v;
  // The compressed length of a write's answer depends on the id it made; the text is compared.
  if (headers['content-encoding'] !== undefined) delete headers['content-length'];
  return { status: g.status, headers, body: masked(plainText(g)) };
}

/** Both servers, their agents and the ids the cases use. */
export interface Pair {
  fast: Running;
  plain: Running;
  fastBase: string;
  plainBase: string;
  fastAgent: http.Agent;
  plainAgent: http.Agent;
}

export async function startPair(engine: 'pglite' | 'postgres', extra: Parameters<typeof startHarness>[1] = {}): Promise<Pair> {
  const fast = await startHarness(engine, { bodyLimitBytes: 8192, ...extra });
  const plain = await startHarness(engine, { bodyLimitBytes: 8192, ...extra, sameDatabaseAs: fast, apiFastPath: false });
  return {
    fast,
    plain,
    fastBase: await fast.listen(),
    plainBase: await plain.listen(),
    fastAgent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    plainAgent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
  };
}

export async function stopPair(p: Pair | undefined): Promise<void> {
  p?.fastAgent.destroy();
  p?.plainAgent.destroy();
  await p?.plain.stop();
  await p?.fast.stop();
}

/** Requests Fastify's API route handled (its diagnostics channel); the fast path's own answers never get there. */
export const routed: string[] = [];
export const onHandler = (message: unknown) => {
  const url = (message as { request?: { url?: unknown } }).request?.url;
  if (typeof url === 'string') routed.push(url);
};

/** Sends to the server without the fast path, then to the one with it; the answers must match. */
export async function same(p: Pair, r: Sent): Promise<{ got: Got; routed: boolean }> {
  return sameAnswers(p, r, r);
}

/**
 * The same, for requests that must differ in what the servers made before (a file's upload
 * token in the path): `plainReq` to the server without the fast path, `fastReq` to the other;
 * `view` masks what differs in the answers besides ids and times.
 */
export async function sameAnswers(p: Pair, plainReq: Sent, fastReq: Sent, view: (g: Got) => unknown = comparable): Promise<{ got: Got; routed: boolean }> {
  const plain = await send(p.plainBase, p.plainAgent, plainReq);
  routed.length = 0;
  const fast = await send(p.fastBase, p.fastAgent, fastReq);
  const wasRouted = routed.length > 0;
  assert.deepEqual(view(fast), view(plain), `${fastReq.method} ${fastReq.path.slice(0, 100)}`);
  return { got: fast, routed: wasRouted };
}
