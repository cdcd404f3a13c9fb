/**
 * The friends module's app settings (docs/admin.md), declared in the one settings catalogue
 * through the module surface: GET/PUT /1.1/larder/settings and `larder settings` know them
 * because this module is part of the build.
 */
import { declareSettings, invalidSetting, type AppContext, type SettingValues } from '../../module-api/settings.ts';

/** The two friend models; '' means not chosen yet. */
export type FriendModel = '' | 'mutual' | 'follow';
/** Readers of presence: every signed-in user, or only friends (docs/friends.md). */
export type RichPresenceAudience = 'users' | 'friends';
/** shared = requester and friend, public = everyone reads, private = owner only. */
export type FriendshipAclMode = 'shared' | 'public' | 'private';

const FRIENDS_SETTINGS = declareSettings('friends', {
  richPresenceSync: {
    default: false,
    doc: 'Console option "real-time synchronization of rich information": the friends service answers only when it is on.',
  },
  friendModel: {
    default: '' as FriendModel,
    doc: "Friend model of the app: '' until chosen, then 'mutual' or 'follow' for good.",
    choices: ['mutual', 'follow'],
    check(value: FriendModel, current: FriendModel) {
      if (current !== '' && value !== current) {
        throw invalidSetting(`the friend model is already ${JSON.stringify(current)} and cannot be changed (it is chosen once, for good)`);
      }
    },
  },
  friendshipACL: { default: 'shared' as FriendshipAclMode, choices: ['shared', 'public', 'private'], doc: 'Default ACL of friendship rows (_Followee, _Follower, _FriendshipRequest).' },
  autoFollowBack: { default: false, doc: 'Follow model: following someone makes them follow back (two rows each way).' },
  richPresenceAudience: {
    default: 'users' as RichPresenceAudience,
    choices: ['users', 'friends'],
    doc: "Who may read a user's presence and online flag: any signed-in user ('users') or its friends ('friends').",
  },
  friendsWebSocketUrl: {
    default: '',
    doc: "Friends WebSocket address given to clients (ws:// or wss://); '' derives it from the public URL.",
    check(value: string) {
      if (value !== '' && !/^wss?:\/\/[^\s/]+(\/\S*)?$/.test(value)) throw invalidSetting('friendsWebSocketUrl must be "" or a ws:// or wss:// URL');
    },
  },
  friendsIdleTimeoutMs: { default: 90_000, range: [100, 24 * 3600_000], doc: 'A friends WebSocket silent (no heartbeat) this long is closed, ms.' },
  friendsLeaseMs: { default: 30_000, range: [1000, 24 * 3600_000], doc: 'A Larder process that has not renewed its lease this long is dead: its users go offline, ms.' },
});

/** The friends module's settings, typed. */
export type FriendsSettings = SettingValues<typeof FRIENDS_SETTINGS.specs>;

/** The friends settings of an app. */
export function friendsSettings(app: Pick<AppContext, 'settings'>): FriendsSettings {
  return FRIENDS_SETTINGS.of(app.settings);
}
