import type { AppContext } from '../../../module-api/context.ts';
import { friendsSettings } from '../friends-settings.ts';

/** Path of the friends WebSocket when the app does not configure one: the original service's. */
export const DEFAULT_WS_PATH = '/ws/leancloud/v1';

/**
 * The WebSocket address clients are given: the app setting `friendsWebSocketUrl` when set (a
 * proxy or another host in front), else this server's public base URL (LARDER_PUBLIC_URL, or
 * the request's own scheme and host, which behind a TLS proxy honours X-Forwarded-Proto) with
 * http -> ws and https -> wss.
 */
export function webSocketUrlOf(app: AppContext, baseUrl: string): string {
  const configured = friendsSettings(app).friendsWebSocketUrl;
  if (configured) return configured;
  const base = baseUrl.replace(/\/+$/, '');
  const ws = base.startsWith('https://') ? `wss://${base.slice(8)}` : base.startsWith('http://') ? `ws://${base.slice(7)}` : base;
  return `${ws}${DEFAULT_WS_PATH}`;
}

/** Paths the upgrade handler serves: the default one, and the path of a configured address. */
export function webSocketPaths(app: AppContext): string[] {
  const paths = [DEFAULT_WS_PATH];
  const configured = friendsSettings(app).friendsWebSocketUrl;
  if (configured) {
    try {
      const p = new URL(configured).pathname.replace(/\/+$/, '') || '/';
      if (!paths.includes(p)) paths.push(p);
    } catch {
      // Checked when set (change-settings.ts); an unparsable value serves the default path only.
    }
  }
  return paths;
}
