/**
 * Helpers of the `larder sync` tests (test/integration/sync.test.ts): real Larder processes on
 * one engine, a recording proxy in front of the source (every request the sync sends passes
 * through it, so the test can prove the sync only reads), and a dump of an app through its own
 * REST API (schemas, every object with its ACL, every relation's members) to compare source and
 * target.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, larder, stop, waitForHealth, type Larder } from './harness/larder-process.ts';

/** Keys of one app. */
export interface Keys {
  appId: string;
  appKey: string;
  masterKey: string;
}

/** Where one Larder keeps its data: a PGlite directory or a PostgreSQL schema. */
export interface Store {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh, empty store on the engine. */
export function newStore(engine: 'pglite' | 'postgres'): Store {
  if (engine === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'larder-sync-'));
    return { env: { LARDER_DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.TEST_DATABASE_URL ?? '';
  const schema = `sync_${randomBytes(5).toString('hex')}`;
  return {
    env: { DATABASE_URL: url, LARDER_DB_SCHEMA: schema, LARDER_POOL_SIZE: '3' },
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A running Larder server. */
export interface RunningServer {
  base: string;
  proc: Larder;
}

/** Starts `larder serve` on the store with the keys; resolves once /health answers. */
export async function startServer(store: Store, keys: Keys): Promise<RunningServer> {
  const port = await freePort();
  const proc = larder([], {
    ...store.env,
    LARDER_PORT: String(port),
    LARDER_HOST: '127.0.0.1',
    LARDER_APP_ID: keys.appId,
    LARDER_APP_KEY: keys.appKey,
    LARDER_MASTER_KEY: keys.masterKey,
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base);
  } catch (err) {
    stop(proc);
    throw err;
  }
  return { base, proc };
}

/** Stops a server with SIGTERM and waits for it (the embedded engine's lock is then free). */
export async function stopServer(s: RunningServer): Promise<void> {
  s.proc.child.kill('SIGTERM');
  await s.proc.exited(30_000);
}

/** A master-key JSON request to an app; throws on an error answer. */
export async function api(base: string, keys: Keys, method: string, path: string, body?: unknown, query?: Record<string, unknown>): Promise<any> {
  const url = new URL(`${base}/1.1/${path}`);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const res = await fetch(url, {
    method,
    headers: { 'X-LC-Id': keys.appId, 'X-LC-Key': `${keys.masterKey},master`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: unknown = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** One request the proxy forwarded. */
export interface Seen {
  method: string;
  url: string;
}

/** An HTTP proxy in front of `target` that records every request. */
export async function recordingProxy(target: string): Promise<{ base: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer(async (req, res) => {
    seen.push({ method: req.method ?? '?', url: req.url ?? '' });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
    try {
      const up = await fetch(`${target}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await up.arrayBuffer()));
    } catch {
      res.writeHead(502).end();
    }
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  let closed = false;
  const close = () =>
    new Promise<void>((r) => {
      if (closed) return r();
      closed = true;
      server.closeAllConnections();
      server.close(() => r());
    });
  return { base: `http://127.0.0.1:${port}`, seen, close };
}

/** Everything an app holds, as its API shows it with the master key. */
export interface Dump {
  schemas: Record<string, Record<string, { type: string; className?: string }>>;
  objects: Record<string, Record<string, unknown>[]>;
  /** "<class>.<key>.<ownerId>" -> sorted member ids (non-empty memberships only). */
  relations: Record<string, string[]>;
}

/** Reads a whole app through its REST API. */
export async function dump(base: string, keys: Keys): Promise<Dump> {
  const schemas = (await api(base, keys, 'GET', 'schemas')) as Dump['schemas'];
  const objects: Dump['objects'] = {};
  const relations: Dump['relations'] = {};
  for (const [className, fields] of Object.entries(schemas)) {
    const all: Record<string, unknown>[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await api(base, keys, 'GET', `scan/classes/${className}`, undefined, { limit: '1000', returnACL: 'true', ...(cursor ? { cursor } : {}) });
      all.push(...page.results);
      if (!page.cursor) break;
      cursor = page.cursor;
    }
    objects[className] = all.sort((a, b) => (String(a.objectId) < String(b.objectId) ? -1 : 1));
    for (const [key, f] of Object.entries(fields)) {
      if (f.type !== 'Relation' || !f.className) continue;
      for (const o of all) {
        const where = { $relatedTo: { object: { __type: 'Pointer', className, objectId: o.objectId }, key } };
        const res = await api(base, keys, 'GET', `classes/${f.className}`, undefined, { where, keys: 'objectId', limit: '1000' });
        const ids = (res.results as { objectId: string }[]).map((r) => r.objectId).sort();
        if (ids.length) relations[`${className}.${key}.${String(o.objectId)}`] = ids;
      }
    }
  }
  return { schemas, objects, relations };
}

/** Resolves once `sync`'s output holds `n` "round ... done" lines stamped after `since` (ms). */
export async function roundsAfter(proc: Larder, since: number, n: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stamps = [...proc.stdout().matchAll(/^(\S+) round \d+ done/gm)].map((m) => Date.parse(m[1]));
    if (stamps.filter((t) => t > since).length >= n) return;
    if (proc.child.exitCode !== null) throw new Error(`sync exited early:\n${proc.stdout()}\n${proc.stderr()}`);
    if (Date.now() > deadline) throw new Error(`sync did not catch up in ${timeoutMs} ms:\n${proc.stdout()}\n${proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
