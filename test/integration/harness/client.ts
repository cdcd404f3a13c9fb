import type { FastifyInstance } from 'fastify';
import { TEST_KEYS } from './engines.ts';

/** One request made by a test. */
export interface TestRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';
  url: string;
  body?: unknown;
  /** Raw body text (sent as is); overrides `body`. */
  payload?: string;
  query?: Record<string, string | number | boolean | object | undefined | unknown>;
  master?: boolean;
  session?: string;
  /** false: send no app credentials at all. */
  auth?: boolean;
  headers?: Record<string, string>;
}

/** A response as tests see it. */
export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

/** Makes in-process requests against the app with the test keys. */
export class TestClient {
  constructor(private readonly server: FastifyInstance) {}

  /** Sends a request; JSON-encodes `body` and object-valued query parameters. */
  async request<T = any>(r: TestRequest): Promise<TestResponse<T>> {
    const headers: Record<string, string> = {};
    if (r.auth !== false) {
      headers['x-lc-id'] = TEST_KEYS.appId;
      headers['x-lc-key'] = r.master ? `${TEST_KEYS.masterKey},master` : TEST_KEYS.appKey;
    }
    if (r.session) headers['x-lc-session'] = r.session;
    let payload: string | undefined = r.payload;
    if (payload === undefined && r.body !== undefined) {
      payload = JSON.stringify(r.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, r.headers ?? {});
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.query ?? {})) {
      if (v === undefined) continue;
      query[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
    const res = await this.server.inject({ method: r.method ?? 'GET', url: r.url, headers, payload, query });
    let body: unknown = undefined;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, body: body as T, headers: res.headers, text: res.body };
  }

  get<T = any>(url: string, query?: TestRequest['query'], extra: Partial<TestRequest> = {}) {
    return this.request<T>({ method: 'GET', url, query, ...extra });
  }
  post<T = any>(url: string, body?: unknown, extra: Partial<TestRequest> = {}) {
    return this.request<T>({ method: 'POST', url, body, ...extra });
  }
  put<T = any>(url: string, body?: unknown, extra: Partial<TestRequest> = {}) {
    return this.request<T>({ method: 'PUT', url, body, ...extra });
  }
  delete<T = any>(url: string, extra: Partial<TestRequest> = {}) {
    return this.request<T>({ method: 'DELETE', url, ...extra });
  }
}
