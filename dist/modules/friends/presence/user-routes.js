/**
 * A player's own rich presence (POST users/me) and reading others' (GET users?ids=...).
 */
import { nowOf } from '../../../app-context.js';
import { ApiError } from '../../../errors/api-error.js';
import { text } from '../../../http/query-params.js';
import { ok } from '../../../http/route.js';
import { friendIdsOf } from '../friendship/friend-ids.js';
import { announcePresenceUpdate } from '../realtime/friend-events.js';
import { friendsCaller } from './friends-caller.js';
import { parseIdsParam } from './ids-param.js';
import { chooseLangs } from './localize.js';
import { parsePresenceBody } from './parse-presence-body.js';
import { loadBaseInfo } from './presence-config.js';
import { PRESENCE_LIMITS } from './presence-limits.js';
import { presenceForLangs } from './presence-of.js';
import { applyPresenceChange } from './presence-store.js';
import { ensurePresenceTables } from './presence-tables.js';
import { ACCEPT_LANGUAGE_PARAM } from './request-hooks.js';
/** §7.4: setting and clearing are each allowed once per window; the second within it is refused. */
function tooFrequent(refusal, now) {
    const what = refusal.kind === 'set' ? 'setting' : 'clearing';
    const waitSec = Math.max(1, Math.ceil((refusal.retryAt.getTime() - now.getTime()) / 1000));
    return new ApiError('presenceTooFrequent', `Rich presence changed too often: ${what} values is allowed once per ${PRESENCE_LIMITS.rateWindowMs / 1000} seconds; try again in ${waitSec} s.`);
}
/** POST users/me (set or clear own presence), GET users (read presence of ids). */
export const userPresenceRoutes = [
    {
        method: 'POST',
        path: '/friend/v1/rich-presence/users/me',
        async handler(req) {
            const caller = await friendsCaller(req, true);
            const userId = caller.userId;
            const app = req.ctx.app;
            await ensurePresenceTables(app.db);
            const base = await loadBaseInfo(app.db);
            const parsed = parsePresenceBody(req.body, base.fields);
            const now = nowOf(app);
            const refusal = await applyPresenceChange(app, userId, { ...parsed, at: now }, PRESENCE_LIMITS.rateWindowMs);
            if (refusal)
                throw tooFrequent(refusal, now);
            // After the commit, as every side effect: friends re-fetch and must see the new values.
            await announcePresenceUpdate(app, userId, base);
            return ok({});
        },
    },
    {
        method: 'GET',
        path: '/friend/v1/rich-presence/users',
        async handler(req) {
            const caller = await friendsCaller(req, false);
            const app = req.ctx.app;
            const ids = parseIdsParam(req.query.ids);
            const langs = chooseLangs(text(req.query, 'lang'), text(req.query, ACCEPT_LANGUAGE_PARAM));
            // Nobody reads presence beyond what the friend model allows: yourself and your friends.
            // Others look exactly like unknown or silent users, so the answer leaks nothing. The
            // friend lookup and the presence read run side by side; only visible entries are kept.
            const [friends, found] = await Promise.all([
                caller.master ? undefined : friendIdsOf(app, caller.userId, ids).then((f) => new Set(f)),
                presenceForLangs(app, ids, langs),
            ]);
            const visible = (id) => !friends || id === caller.userId || friends.has(id);
            const byId = new Map(ids.map((id, i) => [id, found[i]]));
            return ok({ results: ids.map((id) => (visible(id) ? byId.get(id) : undefined) ?? { online: false, richPresence: {} }) });
        },
    },
];
//# sourceMappingURL=user-routes.js.map