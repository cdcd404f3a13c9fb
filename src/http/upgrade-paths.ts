/**
 * WebSocket endpoints of optional modules share the HTTP server's 'upgrade' event. Each claims
 * its paths here and ignores the others; one fallback listener, added with the first claim,
 * answers a path nobody claimed with 404 {code, error}, so that such an upgrade never hangs.
 */
import type { FastifyInstance } from 'fastify';

type Owns = (path: string) => boolean;

const claims = new WeakMap<FastifyInstance, Owns[]>();

/** The path of an upgrade request, without query and trailing slashes. */
export function upgradePath(url: string | undefined): string {
  return new URL(url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
}

/** Claims the paths `owns` accepts for an endpoint of this server. */
export function claimUpgradePaths(server: FastifyInstance, owns: Owns): void {
  let list = claims.get(server);
  if (!list) {
    const all: Owns[] = [];
    list = all;
    claims.set(server, all);
    server.server.on('upgrade', (req, socket) => {
      const path = upgradePath(req.url);
      if (all.some((o) => o(path))) return;
      socket.on('error', () => {});
      const body = JSON.stringify({ code: 404, error: `No WebSocket endpoint at ${path.slice(0, 200)}.` });
      socket.end(`HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    });
  }
  list.push(owns);
}
