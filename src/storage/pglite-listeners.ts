/**
 * The embedded engine's notification listeners (pglite-host.ts). The worker listens once per
 * channel and the host hands each notification to every listener of it (two apps on one
 * engine, as two processes on PostgreSQL); after a restart the host listens again on every
 * channel, and listeners reload when notifications may have been lost.
 */

/** One listener of a channel. */
export interface ChannelListener {
  channel: string;
  onMessage: (payload: string) => void;
  /** Runs after a restart that may have lost notifications. */
  onReset: () => void;
}

export class ChannelListeners {
  private readonly list: ChannelListener[] = [];

  /** Channels somebody listens on, each once. */
  channels(): string[] {
    return [...new Set(this.list.map((l) => l.channel))];
  }

  has(channel: string): boolean {
    return this.list.some((l) => l.channel === channel);
  }

  deliver(channel: string, payload: string): void {
    for (const l of this.list) if (l.channel === channel) l.onMessage(payload);
  }

  reset(): void {
    for (const l of this.list) l.onReset();
  }

  /** Registers `listener`; the function returned stops it alone (the worker keeps listening: cheap). */
  add(listener: ChannelListener): () => Promise<void> {
    this.list.push(listener);
    return async () => {
      const i = this.list.indexOf(listener);
      if (i >= 0) this.list.splice(i, 1);
    };
  }
}
