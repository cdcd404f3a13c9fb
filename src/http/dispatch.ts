import type { AppContext, Principal, RequestContext } from '../app-context.ts';
import { authenticate } from '../auth/authenticate.ts';
import { resolvePrincipal } from '../auth/principal.ts';
import { ApiError } from '../errors/api-error.ts';
import { callerFromHeaders, type CallerInfo } from './credentials.ts';
import type { ApiResponse, QueryParams } from './route.ts';
import type { RouteTable } from './route-table.ts';

/** One request to dispatch, from HTTP or from a batch item. */
export interface DispatchInput {
  method: string;
  path: string;
  query: QueryParams;
  body: unknown;
  inBatch: boolean;
}

/** Builds the per-request context once authentication has passed. */
export function makeContext(app: AppContext, caller: CallerInfo, master: boolean, baseUrl: string): RequestContext {
  let principal: Promise<Principal> | undefined;
  return {
    app,
    master,
    sessionToken: caller.sessionToken,
    production: caller.production,
    hookKey: caller.hookKey,
    baseUrl,
    principal: () => (principal ??= resolvePrincipal(app, master, caller.sessionToken)),
  };
}

/** Authenticates the caller against the app (401 on failure). */
export function authenticateCaller(app: AppContext, caller: CallerInfo): boolean {
  return authenticate(caller.credentials, {
    keys: app.keys,
    masterSignWindowMs: app.masterSignWindowMs,
    now: Date.now,
  }).master;
}

/**
 * The request context of a raw HTTP request outside the dispatcher (a module's streaming route):
 * the same headers, key check and lazy principal as a dispatched request.
 */
export function contextFromHeaders(app: AppContext, headers: Readonly<Record<string, string | string[] | undefined>>, baseUrl: string): RequestContext {
  const caller = callerFromHeaders(headers);
  return makeContext(app, caller, authenticateCaller(app, caller), baseUrl);
}

/**
 * Routes one request to its handler. Errors are thrown as ApiError; the caller turns them into
 * a response (HTTP) or a batch error item.
 */
export async function dispatch(table: RouteTable, input: DispatchInput, ctx: () => RequestContext): Promise<ApiResponse> {
  const m = table.match(input.method, input.path);
  if (m.kind === 'not-found') throw new ApiError('notFound', `Route not found: ${input.method} ${input.path.slice(0, 200)}`);
  if (m.kind === 'wrong-method') throw new ApiError('methodNotAllowed', `Method ${input.method} is not allowed here; use ${[...new Set(m.allowed)].join(', ')}.`);
  return m.route.handler({ ctx: ctx(), params: m.params, query: input.query, body: input.body, inBatch: input.inBatch });
}
