/**
 * The LiveQuery WebSocket endpoint, on the HTTP server's 'upgrade' event (the `ws` package, no
 * Fastify plugin, as the friends endpoint). There is nothing to authenticate at the upgrade:
 * the realtime SDK sends no keys; each `login` names the app and a subscription id, and
 * subscriptions carry their session (POST /1.1/LiveQuery/subscribe).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AppContext, Logger } from '../../../module-api/context.ts';
import { claimUpgradePaths, upgradePath } from '../../../module-api/http.ts';
import { chooseSubprotocol, formatOf, SUBPROTOCOLS } from '../protocol/frame-codec.ts';
import type { LiveQueryService } from '../service/live-service.ts';
import { LiveConnection } from './live-connection.ts';

/** Path of the WebSocket endpoint (GET /v1/route answers its full address). */
export const LIVEQUERY_WS_PATH = '/livequery';
/** Largest frame accepted from a client: commands are small. */
const MAX_FRAME_BYTES = 64 * 1024;
/** The server pings every connection this often; one silent for three rounds is cut off. */
const PING_MS = 30_000;

function refuse(socket: Duplex, status: number, text: string): void {
  const body = JSON.stringify({ code: status, error: text });
  socket.end(`HTTP/1.1 ${status} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** Attaches the endpoint; returns what the server's close hooks call. */
export function mountLiveSocket(server: FastifyInstance, app: AppContext, service: LiveQueryService, logger: Logger): { closeAll(): void } {
  // perMessageDeflate off: zlib state per connection costs more than pushes gain.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: (offered) => chooseSubprotocol(offered) ?? false,
  });
  const connections = new Map<WebSocket, LiveConnection>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (upgradePath(req.url) !== LIVEQUERY_WS_PATH) return;
    socket.on('error', () => {});
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
    if (!chooseSubprotocol(offered)) {
      refuse(socket, 400, `Unsupported WebSocket subprotocol; use one of ${SUBPROTOCOLS.join(', ')}.`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const format = formatOf(ws.protocol);
      if (!format) return ws.close(1002, 'unsupported subprotocol');
      const conn = new LiveConnection(ws, format, service, app, logger);
      connections.set(ws, conn);
      ws.on('message', (data, isBinary) => conn.onFrame(Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]), isBinary));
      ws.on('pong', () => (conn.lastSeen = Date.now()));
      ws.on('error', () => {});
      ws.on('close', () => {
        connections.delete(ws);
        conn.closed().catch((err: unknown) => logger.warn({ err }, 'livequery: recording a closed connection failed'));
      });
    });
  };
  claimUpgradePaths(server, (path) => path === LIVEQUERY_WS_PATH);
  server.server.on('upgrade', onUpgrade);

  const pinger = setInterval(() => {
    const now = Date.now();
    for (const [ws, conn] of connections) {
      if (now - conn.lastSeen > 3 * PING_MS) ws.terminate();
      else ws.ping();
    }
  }, PING_MS);
  pinger.unref();

  return {
    closeAll() {
      clearInterval(pinger);
      server.server.off('upgrade', onUpgrade);
      // Clients are told to reconnect (to another process behind the same address), then cut.
      service.goAwayAll();
      for (const ws of connections.keys()) ws.terminate();
      wss.close();
    },
  };
}
