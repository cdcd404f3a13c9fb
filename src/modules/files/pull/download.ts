/**
 * Downloads one file for `larder files pull`: redirects followed (fetch, at most 20), an idle
 * timeout (no byte for `idleTimeoutMs` aborts; a large file on a steady link is never cut off),
 * and retries with exponential backoff and jitter for network errors, timeouts, 408, 429 and
 * 5xx. Other answers (404, 403, ...) fail at once: asking again would not change them.
 */
import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** How downloads behave. */
export interface DownloadOptions {
  retries: number;
  idleTimeoutMs: number;
  /** First backoff, ms; doubled on each retry (with up to 50% jitter), at most 30 s. */
  backoffMs: number;
}

/** A download that will not succeed (after retries when they made sense). */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** A body being received, with a way to abort it. */
export interface Download {
  body: Readable;
  /** Content-Length as announced, when announced. */
  length?: number;
}

/** Resets an idle timer on every chunk. */
class IdleWatch extends Transform {
  private timer: NodeJS.Timeout;
  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {
    super();
    this.timer = setTimeout(onIdle, ms);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.timer.refresh();
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    clearTimeout(this.timer);
    done();
  }
  override _destroy(err: Error | null, done: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    done(err);
  }
}

/** Opens one download attempt (headers received); the body streams through an idle watch. */
async function attempt(url: string, opts: DownloadOptions): Promise<Download> {
  const controller = new AbortController();
  const headersTimer = setTimeout(() => controller.abort(new Error(`no answer within ${opts.idleTimeoutMs} ms`)), opts.idleTimeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'follow', signal: controller.signal, headers: { 'user-agent': 'larder-files-pull' } });
  } catch (err) {
    const cause = controller.signal.aborted ? (controller.signal.reason as Error).message : (err as Error).message;
    throw new DownloadError(`request failed: ${cause}`, true);
  } finally {
    clearTimeout(headersTimer);
  }
  if (!res.ok || !res.body) {
    void res.body?.cancel().catch(() => {});
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    throw new DownloadError(`HTTP ${res.status}`, retryable);
  }
  const watch = new IdleWatch(opts.idleTimeoutMs, () => {
    controller.abort();
    watch.destroy(new DownloadError(`stalled: no data for ${opts.idleTimeoutMs} ms`, true));
  });
  const source = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  source.on('error', (err) => watch.destroy(err instanceof DownloadError ? err : new DownloadError(`connection lost: ${err.message}`, true)));
  source.pipe(watch);
  const length = Number(res.headers.get('content-length'));
  return { body: watch, length: Number.isFinite(length) && res.headers.has('content-length') ? length : undefined };
}

/** Waits before retry number `n` (1-based). */
export function backoffDelay(opts: DownloadOptions, n: number): number {
  const base = Math.min(30_000, opts.backoffMs * 2 ** (n - 1));
  return Math.round(base * (1 + Math.random() * 0.5));
}

/**
 * Runs `consume` on a download of `url`, retrying the whole attempt (request and consumption)
 * when it fails in a way worth retrying. `consume` must undo its own partial work on failure.
 */
export async function withDownload<T>(url: string, opts: DownloadOptions, consume: (d: Download) => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await consume(await attempt(url, opts));
    } catch (err) {
      // Only transfer failures are retried; a wrong size or checksum, a file over the limit or a
      // storage failure would fail the same way again.
      if (!(err instanceof DownloadError && err.retryable) || n >= opts.retries) throw err;
      await new Promise((r) => setTimeout(r, backoffDelay(opts, n + 1)));
    }
  }
}
