/**
 * A player's own rich presence (POST users/me) and reading others' (GET users?ids=...).
 */
import { nowOf } from '../../../module-api/context.ts';
import { ApiError } from '../../../module-api/errors.ts';
import { text, ok, type Route } from '../../../module-api/http.ts';
import { presenceVisibleTo } from './presence-audience.ts';
import { announcePresenceUpdate } from '../realtime/friend-events.ts';
import { friendsCaller } from './friends-caller.ts';
import { parseIdsParam } from './ids-param.ts';
import { chooseLangs } from './localize.ts';
import { parsePresenceBody } from './parse-presence-body.ts';
import { loadBaseInfo } from './presence-config.ts';
import { PRESENCE_LIMITS } from './presence-limits.ts';
import { presenceForLangs } from './presence-of.ts';
import { applyPresenceChange, type RateRefusal } from './presence-store.ts';
import { ensurePresenceTables } from './presence-tables.ts';
import { ACCEPT_LANGUAGE_PARAM } from './request-hooks.ts';
import { friendsError } from '../friends-errors.ts';

/** §7.4: setting and clearing are each allowed once per window; the second within it is refused. */
function tooFrequent(refusal: RateRefusal, now: Date): ApiError {
  const what = refusal.kind === 'set' ? 'setting' : 'clearing';
  const waitSec = Math.max(1, Math.ceil((refusal.retryAt.getTime() - now.getTime()) / 1000));
  return friendsError('presenceTooFrequent', `Rich presence changed too often: ${what} values is allowed once per ${PRESENCE_LIMITS.rateWindowMs / 1000} seconds; try again in ${waitSec} s.`);
}

/** POST users/me (set or clear own presence), GET users (read presence of ids). */
export const userPresenceRoutes: Route[] = [
  {
    method: 'POST',
    path: '/friend/v1/rich-presence/users/me',
    async handler(req) {
      const caller = await friendsCaller(req, true);
      const userId = caller.userId as string;
      const app = req.ctx.app;
      await ensurePresenceTables(app.db);
      const base = await loadBaseInfo(app.db);
      const parsed = parsePresenceBody(req.body, base.fields);
      const now = nowOf(app);
      const refusal = await applyPresenceChange(app, userId, { ...parsed, at: now }, PRESENCE_LIMITS.rateWindowMs);
      if (refusal) throw tooFrequent(refusal, now);
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
      // Nobody reads presence beyond the app's richPresenceAudience (presence-audience.ts).
      // Hidden users look exactly like unknown or silent users, so the answer leaks nothing.
      // The audience lookup and the presence read run side by side; only visible entries are kept.
      const [allowed, found] = await Promise.all([
        caller.master ? undefined : presenceVisibleTo(app, caller.userId as string, ids),
        presenceForLangs(app, ids, langs),
      ]);
      const visible = (id: string) => !allowed || allowed.has(id);
      const byId = new Map(ids.map((id, i) => [id, found[i]]));
      return ok({ results: ids.map((id) => (visible(id) ? byId.get(id) : undefined) ?? { online: false, richPresence: {} }) });
    },
  },
];
