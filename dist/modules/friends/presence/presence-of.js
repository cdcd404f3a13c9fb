import { presenceAndOnline } from '../realtime/online-registry.js';
import { chooseLangs, localize } from './localize.js';
import { loadPresenceConfig } from './presence-config.js';
import { ensurePresenceTables } from './presence-tables.js';
/**
 * Online flag and localized rich presence of each user, in the order of `userIds` (one entry
 * per id, duplicates included; unknown or silent users get {online:false, richPresence:{}}).
 * `lang` is a language tag (`zh_CN`, `zh-CN`, or an Accept-Language value); see localize.ts.
 * No visibility check here: callers decide who may see whom (the friend lists of the friendship
 * endpoints; rich-presence/users in user-routes.ts).
 */
export async function presenceOf(app, userIds, lang) {
    return presenceForLangs(app, userIds, chooseLangs(undefined, lang));
}
/** The same with an already chosen list of candidate languages (rich-presence/users). */
export async function presenceForLangs(app, userIds, candidates) {
    if (userIds.length === 0)
        return [];
    await ensurePresenceTables(app.db);
    const [config, found] = await Promise.all([loadPresenceConfig(app), presenceAndOnline(app, [...new Set(userIds)])]);
    return userIds.map((id) => {
        const s = found.get(id);
        return { online: s?.online ?? false, richPresence: s?.fields ? localize(s.fields, config.fields, config.langs, candidates) : {} };
    });
}
//# sourceMappingURL=presence-of.js.map