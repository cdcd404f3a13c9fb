/**
 * A stand-in LeanEngine app for tests about where Larder sends its calls (production or staging
 * engine, which hook list it uses, what it passes on), not about the engine SDK itself (the real
 * SDK is test/fixtures/engine-app). It records every request and answers as an engine would:
 * its hook list on `_ops/metadatas`, `{result}` for functions (saying which engine answered and
 * what it was sent), the object for beforeSave (a refusal for class `Refused`), and
 * `{"result":"ok"}` for everything else.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake engine received. */
export interface EngineCall {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: unknown;
}

/** A running fake engine. */
export interface FakeEngine {
  readonly url: string;
  readonly label: string;
  /** The names its metadatas endpoint lists; change it to simulate a redeployed app. */
  names: string[];
  readonly calls: EngineCall[];
  /** Calls whose path starts with `prefix`. */
  callsTo(prefix: string): EngineCall[];
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Starts a fake engine on a random loopback port. */
export async function startFakeEngine(label: string, names: string[]): Promise<FakeEngine> {
  const calls: EngineCall[] = [];
  const engine = {
    url: '',
    label,
    names,
    calls,
    callsTo: (prefix: string) => calls.filter((c) => c.path.startsWith(prefix)),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const path = (req.url ?? '').split('?')[0];
      calls.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (path === '/1.1/functions/_ops/metadatas') return json(res, 200, { result: engine.names });
      const parts = path.split('/').slice(3);
      if (parts.length === 1) {
        return json(res, 200, {
          result: {
            engine: label,
            prod: req.headers['x-lc-prod'] ?? null,
            forwardedFor: req.headers['x-forwarded-for'] ?? null,
            realIp: req.headers['x-real-ip'] ?? null,
            session: req.headers['x-lc-session'] ?? null,
            params: body ?? null,
          },
        });
      }
      if (parts[1] === 'beforeSave') {
        if (parts[0] === 'Refused') return json(res, 400, { code: 1, error: `refused by ${label}` });
        const object = (body as { object?: Record<string, unknown> } | undefined)?.object ?? {};
        return json(res, 200, { ...object, by: label });
      }
      return json(res, 200, { result: 'ok' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  engine.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return engine;
}
