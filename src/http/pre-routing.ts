/**
 * A handler that sees each request before Fastify does (function-fast-path.ts): it answers the
 * request itself, or returns false and Fastify routes it as usual, or takes it and hands it to
 * Fastify later (`toFastify`). Installed by wrapping the listener Fastify put on its HTTP
 * server, not with Fastify's serverFactory, which would drop the server timeouts Fastify sets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Puts a module's pre-routing handler in front of Fastify (files: PUT upload_url), when the
     * server's settings allow answering before Fastify at all (server.ts); false when not.
     */
    larderPreRoute(handler: PreRoute): boolean;
  }
}

/** True when the handler took the request (and will answer it or call toFastify). */
export type PreRoute = (req: IncomingMessage, res: ServerResponse, toFastify: () => void) => boolean;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts `handler` in front of Fastify's routing; it is skipped once the server is closing. Returns
 * false (and leaves the server as it was) when the server's listeners are not Fastify's one.
 */
export function beforeFastify(server: FastifyInstance, handler: PreRoute): boolean {
  const http = server.server;
  const listeners = http.listeners('request') as Listener[];
  if (listeners.length !== 1) return false;
  const fastify = listeners[0];
  // While closing, Fastify answers new requests with 503 and `Connection: close`; so must they.
  let closing = false;
  server.addHook('preClose', async () => {
    closing = true;
  });
  http.removeListener('request', fastify);
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (closing || !handler(req, res, () => fastify(req, res))) fastify(req, res);
  });
  return true;
}

/**
 * What a pre-routing handler left for the Fastify route of a request it handed over (the
 * outcome it already got, so the route never serves the request twice); once.
 */
export function takeHandedOver<T>(handed: WeakMap<IncomingMessage, T>, req: IncomingMessage): T | undefined {
  const value = handed.get(req);
  if (value !== undefined) handed.delete(req);
  return value;
}
