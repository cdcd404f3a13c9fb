import type { AppContext } from '../../../module-api/context.ts';
import { presenceAndOnline } from '../realtime/online-registry.ts';
import { chooseLangs, localize } from './localize.ts';
import { loadPresenceConfig } from './presence-config.ts';
import { ensurePresenceTables } from './presence-tables.ts';

/** What a reader sees of one user (the spec's "Player rich presence"). */
export interface PlayerPresence {
  online: boolean;
  richPresence: Record<string, string>;
}

/**
 * Online flag and localized rich presence of each user, in the order of `userIds` (one entry
 * per id, duplicates included; unknown or silent users get {online:false, richPresence:{}}).
 * `lang` is a language tag (`zh_CN`, `zh-CN`, or an Accept-Language value); see localize.ts.
 * No visibility check here: callers decide who may see whom (the friend lists of the friendship
 * endpoints; rich-presence/users in user-routes.ts).
 */
export async function presenceOf(app: AppContext, userIds: readonly string[], lang?: string): Promise<PlayerPresence[]> {
  return presenceForLangs(app, userIds, chooseLangs(undefined, lang));
}

/** The same with an already chosen list of candidate languages (rich-presence/users). */
export async function presenceForLangs(app: AppContext, userIds: readonly string[], candidates: readonly string[]): Promise<PlayerPresence[]> {
  if (userIds.length === 0) return [];
  await ensurePresenceTables(app.db);
  const [config, found] = await Promise.all([loadPresenceConfig(app), presenceAndOnline(app, [...new Set(userIds)])]);
  return userIds.map((id) => {
    const s = found.get(id);
    return { online: s?.online ?? false, richPresence: s?.fields ? localize(s.fields, config.fields, config.langs, candidates) : {} };
  });
}
