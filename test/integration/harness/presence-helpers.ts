/** Helpers of the friends presence and realtime tests. */
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import type { Harness } from './engines.ts';
import { TEST_KEYS } from './engines.ts';

/**
 * How long a wait for a message, a close or a state gives up by default. A deadline, not a
 * measure: a CI machine at load 20-40 can take seconds to carry a notification between
 * processes, and 5 s was close to that. Tests that assert a speed pass their own bound.
 */
const WAIT_MS = 30_000;

/** Turns the friends service on (and chooses the mutual model once) for a test app. */
export async function enableFriends(h: Harness, extra: Record<string, unknown> = {}): Promise<void> {
  const cur = await h.client.get('/1.1/larder/settings', undefined, { master: true });
  const change: Record<string, unknown> = { richPresenceSync: true, ...extra };
  if (cur.body.friendModel === '') change.friendModel = 'mutual';
  const res = await h.client.put('/1.1/larder/settings', change, { master: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** Makes two users friends in the mutual model: _Followee rows both ways with friendStatus true. */
export async function befriend(h: Harness, a: string, b: string): Promise<void> {
  for (const [u, f] of [[a, b], [b, a]]) {
    const res = await h.client.post(
      '/1.1/classes/_Followee',
      { user: { __type: 'Pointer', className: '_User', objectId: u }, followee: { __type: 'Pointer', className: '_User', objectId: f }, friendStatus: true },
      { master: true },
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
}

/** Declares presence fields and notification flags (base-info). */
export async function configurePresence(h: Harness, body: Record<string, unknown>): Promise<void> {
  const res = await h.client.post('/friend/v2/rich-presence/config/base-info', body, { master: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** A WebSocket client that records every message it receives. */
export interface TestSocket {
  ws: WebSocket;
  messages: unknown[];
  /** Resolves with the first message (already received or future) that matches. */
  next(match: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Resolves with the close code once the server closes the connection. */
  closed(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

/** Opens a friends WebSocket for a session (headers by default, or query parameters). */
export function openSocket(baseUrl: string, session: string, opts: { viaQuery?: boolean; path?: string } = {}): Promise<TestSocket> {
  const path = opts.path ?? '/ws/leancloud/v1';
  const wsBase = baseUrl.replace(/^http/, 'ws');
  const url = opts.viaQuery
    ? `${wsBase}${path}?X-LC-Id=${encodeURIComponent(TEST_KEYS.appId)}&X-LC-Key=${encodeURIComponent(TEST_KEYS.appKey)}&X-LC-Session=${encodeURIComponent(session)}`
    : `${wsBase}${path}`;
  const ws = new WebSocket(url, opts.viaQuery ? {} : { headers: { 'X-LC-Id': TEST_KEYS.appId, 'X-LC-Key': TEST_KEYS.appKey, 'X-LC-Session': session } });
  return wrap(ws);
}

/** Wraps a connecting client; rejects when the upgrade is refused. */
export function wrap(ws: WebSocket): Promise<TestSocket> {
  const messages: unknown[] = [];
  const waiters = new Set<() => void>();
  let closeCode: number | undefined;
  ws.on('message', (d) => {
    messages.push(JSON.parse(d.toString()));
    for (const w of [...waiters]) w();
  });
  ws.on('close', (code) => {
    closeCode = code;
    for (const w of [...waiters]) w();
  });
  const sock: TestSocket = {
    ws,
    messages,
    next(match, timeoutMs = WAIT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const i = messages.findIndex(match);
          if (i >= 0) {
            const [m] = messages.splice(i, 1);
            done();
            resolve(m);
          }
        };
        const timer = setTimeout(() => (done(), reject(new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(messages)}`))), timeoutMs);
        const done = () => (clearTimeout(timer), waiters.delete(check));
        waiters.add(check);
        check();
      });
    },
    closed(timeoutMs = WAIT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (closeCode === undefined) return;
          done();
          resolve(closeCode);
        };
        const timer = setTimeout(() => (done(), reject(new Error(`not closed in ${timeoutMs} ms`))), timeoutMs);
        const done = () => (clearTimeout(timer), waiters.delete(check));
        waiters.add(check);
        check();
      });
    },
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      const done = new Promise<void>((r) => ws.once('close', () => r()));
      ws.close();
      await done;
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(sock));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode, body: body ? JSON.parse(body) : undefined })));
    });
    ws.once('error', reject);
  });
}

/** Polls `check` until it returns true (state that settles asynchronously, e.g. across processes). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = WAIT_MS, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
