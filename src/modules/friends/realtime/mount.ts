/**
 * The friends WebSocket endpoint (§7.5), attached to the HTTP server's 'upgrade' event with the
 * `ws` package (no Fastify plugin: authentication must refuse before the upgrade, with the
 * API's own {code, error} answer). Each connection belongs to one user; heartbeats are the text
 * `{}` answered with `{}`; a connection silent for `friendsIdleTimeoutMs` is closed.
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { websocketConnections } from '../../../module-api/metrics.ts';
import type { AppContext, Logger } from '../../../module-api/context.ts';
import { ApiError, isApiError } from '../../../module-api/errors.ts';
import { claimUpgradePaths } from '../../../module-api/http.ts';
import { friendsEnabled } from '../friends-enabled.ts';
import { ensurePresenceTables } from '../presence/presence-tables.ts';
import { installFriendsRequestHooks } from '../presence/request-hooks.ts';
import { createHub, dropHub } from './hub.ts';
import { FRIENDS_CHANNEL, receiveEnvelope } from './notify.ts';
import { PresenceTracker } from './presence-tracker.ts';
import { authenticateUpgrade } from './upgrade-auth.ts';
import { PATHS } from './friend-events.ts';
import { KICK_CLOSE_CODE, watchRevokedSessions } from './session-kick.ts';
import { webSocketPaths } from './ws-url.ts';
import { friendsSettings } from '../friends-settings.ts';
import { friendsError } from '../friends-errors.ts';

/** Close code sent to connections that stopped sending heartbeats. */
export const IDLE_CLOSE_CODE = 4000;
/** Close code sent when the app turns the friends service off. */
export const DISABLED_CLOSE_CODE = 4003;
/** Connections one user may hold on one process. */
export const MAX_CONNECTIONS_PER_USER = 20;
/** Largest frame accepted from a client: heartbeats are 2 bytes. */
const MAX_FRAME_BYTES = 4096;

interface Connection {
  readonly ws: WebSocket;
  readonly userId: string;
  readonly sessionToken: string;
  lastSeen: number;
  /** Set once the server has started closing it (idle, service off). */
  closing?: boolean;
}

function refuse(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/**
 * Mounts the endpoint for one app. The database side (tables, the process lease, the two
 * LISTEN connections) starts only once the app turns the friends service on (at start-up, or
 * within a second of the setting changing, or at the first accepted upgrade), so servers of apps
 * that never use it hold no extra connections and write nothing.
 */
export async function mountRealtime(server: FastifyInstance, app: AppContext, logger: Logger): Promise<void> {
  installFriendsRequestHooks(server);
  const hub = createHub(app);
  const tracker = new PresenceTracker(app, hub, logger);
  // perMessageDeflate off: it costs ~300 KB of zlib state per connection for 2-byte heartbeats.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false, clientTracking: false });
  const connections = new Set<Connection>();
  let shuttingDown = false;

  const kickable = (userId: string) =>
    [...connections]
      .filter((c) => c.userId === userId)
      .map((c) => ({
        userId: c.userId,
        sessionToken: c.sessionToken,
        kick: () => {
          if (c.ws.readyState !== c.ws.OPEN) return;
          c.ws.send(JSON.stringify({ header: { path: PATHS.kick }, body: {} }));
          c.ws.close(KICK_CLOSE_CODE, 'session revoked');
        },
      }));
  let activation: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  // Each step once, even when a later one failed and activation is retried.
  const done = { tracker: false, listener: false, kick: false };
  const activate = (): Promise<void> =>
    (activation ??= (async () => {
      await ensurePresenceTables(app.db);
      if (!done.tracker) await tracker.start();
      done.tracker = true;
      if (app.db.listen && !done.listener) {
        unlisten = await app.db.listen(FRIENDS_CHANNEL, (payload) => receiveEnvelope(app, hub, payload), () => logger.warn('friends: notification listener reconnected; messages sent meanwhile were lost'));
      }
      done.listener = true;
      if (!done.kick) await watchRevokedSessions(app, kickable, logger);
      done.kick = true;
    })().catch((err: unknown) => {
      // Not sticky: the next upgrade or sweep tries again.
      activation = undefined;
      throw err;
    }));
  if (friendsEnabled(app)) await activate();

  const onConnection = (ws: WebSocket, userId: string, sessionToken: string) => {
    const conn: Connection = { ws, userId, sessionToken, lastSeen: Date.now() };
    connections.add(conn);
    websocketConnections.inc({ service: 'friends' });
    ws.on('message', (data, isBinary) => {
      conn.lastSeen = Date.now();
      // The SDK's heartbeat; anything else from a client has no meaning here and is ignored.
      if (!isBinary && data.toString().trim() === '{}') ws.send('{}');
    });
    ws.on('ping', () => (conn.lastSeen = Date.now()));
    ws.on('error', () => {});
    ws.on('close', () => {
      websocketConnections.dec({ service: 'friends' });
      connections.delete(conn);
      if (hub.remove(userId, ws)) tracker.sync(userId);
    });
    if (hub.add(userId, ws)) tracker.sync(userId);
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    // Another endpoint may own this path; one nobody claimed gets 404 (http/upgrade-paths.ts).
    if (!webSocketPaths(app).includes(path)) return;
    socket.on('error', () => {});
    authenticateUpgrade(app, req.headers, url.searchParams)
      .then(async (who) => {
        // The SDK holds one connection; a cap keeps one user from exhausting the process.
        if (hub.count(who.userId) >= MAX_CONNECTIONS_PER_USER) throw friendsError('friendsTooManyConnections');
        await activate();
        if (shuttingDown) throw new ApiError('notReady', 'The server is shutting down.');
        return who;
      })
      .then(
        ({ userId, sessionToken }) => wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, userId, sessionToken)),
        (err: unknown) => {
          if (isApiError(err)) refuse(socket, err.status, err.toJSON());
          else {
            logger.error({ err }, 'friends: WebSocket authentication failed');
            refuse(socket, 500, { code: 1, error: 'Internal server error. No information available.' });
          }
        },
      );
  };
  claimUpgradePaths(server, (path) => webSocketPaths(app).includes(path));
  server.server.on('upgrade', onUpgrade);

  // Idle connections and a service turned off are checked a few times per idle timeout.
  let sweepTimer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const idleMs = friendsSettings(app).friendsIdleTimeoutMs;
    const now = Date.now();
    const enabled = friendsEnabled(app);
    if (enabled && !activation) activate().catch((err: unknown) => logger.error({ err }, 'friends: starting the realtime service failed'));
    for (const c of connections) {
      if (c.closing) continue;
      if (!enabled) c.ws.close(DISABLED_CLOSE_CODE, 'friends service turned off');
      else if (now - c.lastSeen > idleMs) c.ws.close(IDLE_CLOSE_CODE, 'heartbeat timeout');
      else continue;
      c.closing = true;
      // A peer that does not answer the close handshake is cut off.
      setTimeout(() => c.ws.terminate(), 2000).unref();
    }
    sweepTimer = setTimeout(sweep, Math.min(1000, Math.max(25, Math.floor(idleMs / 4))));
    sweepTimer.unref();
  };
  sweep();

  server.addHook('preClose', async () => {
    shuttingDown = true;
    if (sweepTimer) clearTimeout(sweepTimer);
    server.server.off('upgrade', onUpgrade);
    // Upgraded sockets would keep the HTTP server from closing.
    for (const c of connections) c.ws.terminate();
  });
  server.addHook('onClose', async () => {
    await activation?.catch(() => {});
    if (done.tracker) await tracker.stop();
    await unlisten?.().catch(() => {});
    dropHub(app, hub);
    wss.close();
  });
}
