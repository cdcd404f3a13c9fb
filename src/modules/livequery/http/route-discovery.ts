/**
 * `GET /v1/route?appId=&secure=` (spec leancloud-services.md §4): where the realtime SDK opens
 * its WebSocket. Larder answers its own address: LARDER_PUBLIC_URL when set, else the scheme
 * and host the request came in on (X-Forwarded-Proto / X-Forwarded-Host from a proxy are
 * honoured), with http -> ws and https -> wss.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import { LIVEQUERY_WS_PATH } from '../socket/mount-socket.ts';

/** How long clients may cache the answer, seconds (they fetch it again after a goaway). */
export const ROUTE_TTL_SECONDS = 3600;

/** The WebSocket address for a public base URL such as https://api.example.com/prefix. */
export function webSocketAddress(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const ws = base.startsWith('https://') ? `wss://${base.slice(8)}` : base.startsWith('http://') ? `ws://${base.slice(7)}` : base;
  return `${ws}${LIVEQUERY_WS_PATH}`;
}

function baseUrlOf(req: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${req.protocol}://${req.host}`;
}

/** Registers the route. */
export function mountRouteDiscovery(server: FastifyInstance, app: AppContext, publicUrl: string | undefined): void {
  server.get('/v1/route', async (req, reply) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    if (q.appId !== undefined && q.appId !== app.keys.appId) {
      const err = new ApiError('notFound', 'Unknown appId.');
      return reply.code(err.status).send(err.toJSON());
    }
    const server = webSocketAddress(baseUrlOf(req, publicUrl));
    return { server, secondary: server, ttl: ROUTE_TTL_SECONDS };
  });
}
