import { authenticate } from '../auth/authenticate.js';
import { resolvePrincipal } from '../auth/principal.js';
import { ApiError } from '../errors/api-error.js';
/** Builds the per-request context once authentication has passed. */
export function makeContext(app, caller, master, baseUrl) {
    let principal;
    return {
        app,
        master,
        sessionToken: caller.sessionToken,
        production: caller.production,
        baseUrl,
        principal: () => (principal ??= resolvePrincipal(app, master, caller.sessionToken)),
    };
}
/** Authenticates the caller against the app (401 on failure). */
export function authenticateCaller(app, caller) {
    return authenticate(caller.credentials, {
        keys: app.keys,
        masterSignWindowMs: app.masterSignWindowMs,
        now: Date.now,
    }).master;
}
/**
 * Routes one request to its handler. Errors are thrown as ApiError; the caller turns them into
 * a response (HTTP) or a batch error item.
 */
export async function dispatch(table, input, ctx) {
    const m = table.match(input.method, input.path);
    if (m.kind === 'not-found')
        throw new ApiError('notFound', `Route not found: ${input.method} ${input.path.slice(0, 200)}`);
    if (m.kind === 'wrong-method')
        throw new ApiError('methodNotAllowed', `Method ${input.method} is not allowed here; use ${[...new Set(m.allowed)].join(', ')}.`);
    return m.route.handler({ ctx: ctx(), params: m.params, query: input.query, body: input.body, inBatch: input.inBatch });
}
//# sourceMappingURL=dispatch.js.map