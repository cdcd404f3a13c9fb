import { randomBytes } from 'node:crypto';
import { appSlot } from '../../../module-api/app-state.ts';
import type { AppContext } from '../../../module-api/context.ts';

/** What the hub needs of a connection: send a text frame, and know whether it is still open. */
export interface HubSocket {
  send(data: Buffer, options: { binary: false }): void;
  readonly readyState: number;
}

/** `WebSocket.OPEN` of the `ws` package, without importing it here (the hub is transport-free). */
const OPEN = 1;

/**
 * The friends WebSocket connections of one app in this process, by user. Transport-free (the
 * sockets are anything with send()), so notify.ts can deliver without knowing about `ws`.
 * `processId` names this process in the shared online table and in cross-process messages.
 */
export class Hub {
  readonly processId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly byUser = new Map<string, Set<HubSocket>>();

  /** Adds a connection; true when it is the user's first in this process. */
  add(userId: string, socket: HubSocket): boolean {
    let set = this.byUser.get(userId);
    const first = !set;
    if (!set) {
      set = new Set();
      this.byUser.set(userId, set);
    }
    set.add(socket);
    return first;
  }

  /** Removes a connection; true when it was the user's last in this process. */
  remove(userId: string, socket: HubSocket): boolean {
    const set = this.byUser.get(userId);
    if (!set || !set.delete(socket)) return false;
    if (set.size > 0) return false;
    this.byUser.delete(userId);
    return true;
  }

  /** True while the user holds at least one connection in this process. */
  has(userId: string): boolean {
    return this.byUser.has(userId);
  }

  /** Number of connections the user holds in this process. */
  count(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  /** Sends `text` to every open connection of `userIds` held by this process. */
  deliver(userIds: readonly string[], text: string): number {
    // Encoded once for every recipient (a fan-out reaches up to thousands of sockets).
    const data = Buffer.from(text, 'utf8');
    let sent = 0;
    for (const id of userIds) {
      const set = this.byUser.get(id);
      if (!set) continue;
      for (const s of set) {
        if (s.readyState !== OPEN) continue;
        s.send(data, { binary: false });
        sent++;
      }
    }
    return sent;
  }
}

// One hub per app (not per process): two apps in one process (tests) keep their users apart.
const HUB = appSlot<Hub>('friends.hub');

/** The app's hub in this process, once the realtime endpoint is mounted; undefined before. */
export function hubOf(app: AppContext): Hub | undefined {
  return app.scope.get(HUB);
}

/** Creates the app's hub (mount.ts). */
export function createHub(app: AppContext): Hub {
  const hub = new Hub();
  app.scope.put(HUB, hub);
  return hub;
}

/** Forgets the app's hub (server closed). */
export function dropHub(app: AppContext, hub: Hub): void {
  app.scope.release(HUB, hub);
}
