import type { RequestContext } from '../app-context.ts';

/** HTTP methods the API uses. */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Query parameters: strings when they come from a URL, JSON values when they come from a
 * batch item's `params`. Use-cases parse them with query-params.ts, which accepts both.
 */
export type QueryParams = Readonly<Record<string, unknown>>;

/** A request as use-cases see it: no web framework types. */
export interface ApiRequest {
  readonly ctx: RequestContext;
  readonly params: Readonly<Record<string, string>>;
  readonly query: QueryParams;
  readonly body: unknown;
  /** True inside /1.1/batch, where some routes behave differently (e.g. GET of a missing id). */
  readonly inBatch: boolean;
}

/** What a handler returns. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One endpoint. `path` uses `:name` segments, e.g. /1.1/classes/:className/:objectId. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly handler: (req: ApiRequest) => Promise<ApiResponse>;
}

/** Shorthand for a 200 JSON response. */
export function ok(body: unknown, status = 200, headers?: Record<string, string>): ApiResponse {
  return { status, body, headers };
}
