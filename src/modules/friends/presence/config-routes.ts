/**
 * Rich presence configuration: the client's view (GET config) and the two management endpoints
 * (base-info, lang-info; master key). Every write answers {appId} as the original service did.
 */
import { ok, type Route } from '../../../module-api/http.ts';
import { webSocketUrlOf } from '../realtime/ws-url.ts';
import { friendsCaller, requireFriendsMaster } from './friends-caller.ts';
import { parseBaseInfo, parseLangInfo } from './parse-config-body.ts';
import { deleteLangs, loadBaseInfo, loadPresenceConfig, saveBaseInfo, saveLangs } from './presence-config.ts';
import { ensurePresenceTables } from './presence-tables.ts';

/** GET config, POST base-info (v2), POST lang-info. */
export const configRoutes: Route[] = [
  {
    method: 'GET',
    path: '/friend/v1/rich-presence/config',
    async handler(req) {
      await friendsCaller(req, false);
      const app = req.ctx.app;
      const config = await loadPresenceConfig(app);
      return ok({
        clientId: app.keys.appId,
        // The SDK opens the WebSocket only when this is the integer 1. The service answers only
        // while richPresenceSync is on, so whoever reads it may connect.
        enabled: 1,
        richMsgEnabled: config.richMsgEnabled,
        onlineMsgEnabled: config.onlineMsgEnabled,
        webSocketUrl: webSocketUrlOf(app, req.ctx.baseUrl),
        richPresenceFields: config.fields.map((f) => ({ key: f.key, type: f.type })),
        richPresenceMultiLang: config.langs.map((l) => ({ key: l.key, lang: l.lang, content: l.content })),
      });
    },
  },
  {
    method: 'POST',
    path: '/friend/v2/rich-presence/config/base-info',
    async handler(req) {
      requireFriendsMaster(req);
      const app = req.ctx.app;
      await ensurePresenceTables(app.db);
      const base = parseBaseInfo(req.body, await loadBaseInfo(app.db));
      await saveBaseInfo(app, base);
      return ok({ appId: app.keys.appId });
    },
  },
  {
    method: 'POST',
    path: '/friend/v1/rich-presence/config/lang-info',
    async handler(req) {
      requireFriendsMaster(req);
      const app = req.ctx.app;
      await ensurePresenceTables(app.db);
      const action = parseLangInfo(req.body, (await loadBaseInfo(app.db)).fields);
      if (action.kind === 'save') await saveLangs(app, action.langs);
      else await deleteLangs(app, action.targets);
      return ok({ appId: app.keys.appId });
    },
  },
];
