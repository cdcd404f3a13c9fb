/**
 * Module surface: HTTP routes (served by the core dispatcher with its auth, errors and batch),
 * request parameters, and WebSocket upgrades authenticated by the core.
 */
export type { ApiRequest, ApiResponse, QueryParams, Route } from '../http/route.ts';
export { ok } from '../http/route.ts';
export { flag, json, text } from '../http/query-params.ts';
export { includeParam, keysParam } from '../http/key-params.ts';
export { parseFindQuery } from '../http/find-params.ts';
export { claimUpgradePaths, upgradePath } from '../http/upgrade-paths.ts';
export { authenticateUpgrade, type UpgradeAuthOptions, type UpgradeCaller } from '../http/upgrade-auth.ts';
export type { LarderModule } from './larder-module.ts';
export type { PreRoute } from '../http/pre-routing.ts';
export type { RateLimiter } from '../http/rate-limit.ts';
export { writeJson, type AnswerMetrics } from '../http/api-fast-reply.ts';
export { errorBody } from '../http/error-body.ts';
export { logUnexpected } from '../http/api-fast-path.ts';
export { routeFamily } from '../http/route-family.ts';
