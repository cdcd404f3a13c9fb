/**
 * `POST /1.1/LiveQuery/subscribe` and `/unsubscribe` (spec leancloud-services.md §4). A
 * subscription is checked as the find it stands for, by its session's user (from X-LC-Session,
 * or `sessionToken` in the body as the Java SDK sends it), never as the master key: the `find`
 * class permission, hidden fields, no inner queries. Its ACL filter applies at each event.
 */
import { type RequestContext, resolvePrincipal } from '../../../module-api/context.ts';
import { accessOf, checkStandingQuery } from '../../../module-api/reads.ts';
import { ApiError } from '../../../module-api/errors.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../../../module-api/http.ts';
import { liveQueryOf } from '../service/service-registry.ts';
import { parseSubscribeBody, parseSubscriptionId, queryIdOf } from '../store/subscription-query.ts';
import { deleteSubscription } from '../store/subscription-store.ts';
import { liveQueryError } from '../livequery-errors.ts';

/** Subscriptions one subscription id may hold. */
export const MAX_SUBSCRIPTIONS_PER_CLIENT = 200;

function serviceOf(req: ApiRequest) {
  const service = liveQueryOf(req.ctx.app);
  if (!service) throw new ApiError('notReady', 'LiveQuery is not running on this server.');
  return service;
}

/** The subscriber's context: its session, never the master key. */
function subscriberContext(ctx: RequestContext, sessionToken: string | undefined): RequestContext {
  let principal: ReturnType<RequestContext['principal']> | undefined;
  return { ...ctx, master: false, sessionToken, principal: () => (principal ??= resolvePrincipal(ctx.app, false, sessionToken)) };
}

async function subscribe(req: ApiRequest): Promise<ApiResponse> {
  const service = serviceOf(req);
  const parsed = parseSubscribeBody(req.body);
  const ctx = subscriberContext(req.ctx, req.ctx.sessionToken ?? parsed.sessionToken);
  // As the find it stands for (the planner): no hidden or client-invisible field, `find` permission.
  await checkStandingQuery(await accessOf(ctx), parsed.query.className, parsed.condition);
  // A stale token is ignored, as on every other endpoint: the subscription is then anonymous.
  const who = await ctx.principal();
  const queryId = queryIdOf(parsed.subscriptionId, parsed.query);
  const kept = await service.subscribe(
    {
      queryId,
      subscriptionId: parsed.subscriptionId,
      query: parsed.query,
      ...(who.userId && ctx.sessionToken ? { sessionToken: ctx.sessionToken } : {}),
    },
    MAX_SUBSCRIPTIONS_PER_CLIENT,
  );
  if (!kept) throw liveQueryError('liveQueryTooManySubscriptions', `Too many LiveQuery subscriptions for this subscription id: at most ${MAX_SUBSCRIPTIONS_PER_CLIENT}.`);
  return ok({ query_id: queryId });
}

async function unsubscribe(req: ApiRequest): Promise<ApiResponse> {
  const service = serviceOf(req);
  const body = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('invalidJson', 'The body must be a JSON object {id, query_id}.');
  const b = body as Record<string, unknown>;
  const subscriptionId = parseSubscriptionId(b.id);
  if (typeof b.query_id !== 'string' || !/^[0-9a-f]{1,64}$/.test(b.query_id)) throw new ApiError('invalidJson', 'query_id must be the id subscribe answered.');
  // Unsubscribing twice (or after expiry) is not an error: the subscription is gone either way.
  if (await deleteSubscription(req.ctx.app, subscriptionId, b.query_id)) await service.subscriptionsChanged([b.query_id]);
  return ok({});
}

/** The module's REST routes. */
export const liveQueryRoutes: Route[] = [
  { method: 'POST', path: '/1.1/LiveQuery/subscribe', handler: subscribe },
  { method: 'POST', path: '/1.1/LiveQuery/unsubscribe', handler: unsubscribe },
];
