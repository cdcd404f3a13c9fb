/**
 * The read-only client `larder sync` uses to talk to the source service (LeanCloud or another
 * Larder) over its public REST API 1.1. It can only send GET requests: there is no method
 * parameter anywhere in this file, so the sync cannot write to the source by construction.
 *
 * Every request is signed the way the SDKs sign (`X-LC-Sign: md5(ts + key),ts[,master]`), with a
 * fresh timestamp per attempt: LeanCloud and Larder refuse master-key signatures whose timestamp
 * is more than 15 minutes away from their clock, so a signature is never reused across retries.
 * Network errors, timeouts, 429 and 5xx answers are retried with exponential backoff; 401 and
 * answers that are not the API's JSON stop the sync with an error that says what to check.
 */
import { createHash } from 'node:crypto';
import { isPlainObject as isRecord } from '../model/plain-object.ts';

/** Where and how to reach the source app. */
export interface SourceOptions {
  /** Base URL, e.g. `https://abcd1234.lc-cn-n1-shared.com` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  appId: string;
  appKey: string;
  masterKey: string;
  /** `sign` (X-LC-Sign, default) or `key` (X-LC-Key: `<master>,master`). */
  auth?: 'sign' | 'key';
  /** Per-request timeout in ms (default 60 s). */
  timeoutMs?: number;
  /** Attempts per request before giving up (default 6). */
  attempts?: number;
  /** First backoff delay in ms, doubled per retry (default 500). */
  backoffMs?: number;
  /** Injectable for tests. */
  fetchImpl?: typeof fetch;
  /** Called before each retry, for the log. */
  onRetry?: (info: { path: string; attempt: number; reason: string; delayMs: number }) => void;
}

/** A failure the operator must fix (bad keys, wrong URL); retrying will not help. */
export class SourceError extends Error {
  constructor(
    message: string,
    /** The API error code when the source answered `{code, error}`. */
    readonly code?: number,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Query-string values; objects are sent as JSON (where, keys lists are strings already). */
export type QueryValues = Record<string, string | number | boolean | object | undefined>;

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The read-only REST client of the sync source. */
export class SourceClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  /** Requests sent (all GET), for the summary. */
  requests = 0;

  constructor(private readonly opts: SourceOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new SourceError(`--from must be a URL such as https://api.example.com, got ${JSON.stringify(opts.baseUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceError(`--from must be an http(s) URL, got ${url.protocol}`);
    // The API lives under /1.1 of the base; a given trailing /1.1 or / is tolerated.
    this.base = url.toString().replace(/\/+$/, '').replace(/\/1\.1$/, '');
    this.fetchImpl = opts.fetchImpl ?? fetch;
  }

  /** The base URL requests go to (without /1.1). */
  get baseUrl(): string {
    return this.base;
  }

  private headers(master: boolean): Record<string, string> {
    const key = master ? this.opts.masterKey : this.opts.appKey;
    const h: Record<string, string> = { 'X-LC-Id': this.opts.appId, accept: 'application/json', 'user-agent': 'larder-sync/1' };
    if ((this.opts.auth ?? 'sign') === 'key') h['X-LC-Key'] = master ? `${key},master` : key;
    else {
      const ts = String(Date.now());
      h['X-LC-Sign'] = `${md5(ts + key)},${ts}${master ? ',master' : ''}`;
    }
    return h;
  }

  /**
   * GET `/1.1/<path>` and the parsed JSON object. `master` signs with the master key (default);
   * `false` uses the app key (only the start-up check does, to tell a bad app key from a bad
   * master key).
   */
  async get(path: string, query: QueryValues = {}, master = true): Promise<Record<string, unknown>> {
    const url = new URL(`${this.base}/1.1/${path}`);
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined) continue;
      url.searchParams.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const attempts = this.opts.attempts ?? 6;
    let delay = this.opts.backoffMs ?? 500;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      try {
        this.requests++;
        const res = await this.fetchImpl(url, { method: 'GET', headers: this.headers(master), signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000) });
        const body = await res.text();
        if (res.status < 500 && res.status !== 429) return this.parse(path, res.status, res.headers.get('content-type'), body, master);
        reason = `HTTP ${res.status}${body ? `: ${body.slice(0, 200)}` : ''}`;
      } catch (err) {
        if (err instanceof SourceError) throw err;
        reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      if (attempt >= attempts) throw new SourceError(`GET ${url.pathname} failed after ${attempts} attempts: ${reason}`);
      this.opts.onRetry?.({ path: url.pathname, attempt, reason, delayMs: delay });
      await sleep(delay);
      delay = Math.min(delay * 2, 30_000);
    }
  }

  private parse(path: string, status: number, type: string | null, body: string, master: boolean): Record<string, unknown> {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new SourceError(
        `GET /1.1/${path} answered HTTP ${status} with ${type ?? 'no content type'} that is not JSON (${JSON.stringify(body.slice(0, 80))}). ` +
          'Is --from the API base URL of a LeanCloud app or a Larder server (not a web console or a proxy page)?',
        undefined,
        status,
      );
    }
    const code = isRecord(json) && typeof json.code === 'number' ? json.code : undefined;
    const error = isRecord(json) && typeof json.error === 'string' ? json.error : undefined;
    if (status === 401 || code === 401) {
      const which = master ? 'the master key' : 'the app id and app key';
      const clock = (this.opts.auth ?? 'sign') === 'sign' && master ? ' Master-key signatures are only accepted within 15 minutes of the server clock: check this clock, or try --auth key.' : '';
      throw new SourceError(`The source refused ${which} (401 ${error ?? 'Unauthorized'}). Check --app-id and ${master ? '--master-key' : '--app-key'}.${clock}`, 401, status);
    }
    if (status >= 400 || code !== undefined) {
      throw new SourceError(`GET /1.1/${path} failed: HTTP ${status}${code !== undefined ? `, code ${code}` : ''}: ${error ?? body.slice(0, 200)}`, code, status);
    }
    if (!isRecord(json)) throw new SourceError(`GET /1.1/${path} answered ${JSON.stringify(body.slice(0, 80))}, not a JSON object: is --from a LeanCloud or Larder API?`);
    return json;
  }
}
