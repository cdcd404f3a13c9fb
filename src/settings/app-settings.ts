import { DEFAULT_EMAIL_TEXTS, type EmailTexts } from '../mail/mail-texts.ts';
import { DEFAULT_INVISIBLE_FIELDS, type InvisibleFields } from '../model/invisible-fields.ts';
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';

/**
 * Per-app settings that LeanCloud kept as console options. Stored in the database so that
 * every process of one app sees the same values.
 */
export interface AppSettings {
  /** Console option "include ACL with queried objects": needed for returnACL=true. */
  includeACLInQueries: boolean;
  /** Console option "verify email of new users": mails a link whenever an email is set or changed. */
  emailVerification: boolean;
  /** Console option "refuse login until the email is verified" (216). */
  requireVerifiedEmailToLogin: boolean;
  /** Words of the verification and reset mails and of their pages (src/mail/mail-texts.ts). */
  emailTexts: EmailTexts;
  /**
   * Console option "real-time synchronization of rich information": the friends service
   * (rich presence, online status, friend models) answers only when it is on.
   */
  richPresenceSync: boolean;
  /** Friend model of the app: '' until chosen, then 'mutual' or 'follow' for good. */
  friendModel: FriendModel;
  /** Default ACL of friendship rows (_Followee, _Follower, _FriendshipRequest). */
  friendshipACL: FriendshipAclMode;
  /** Follow model: following someone makes them follow back (two rows each way). */
  autoFollowBack: boolean;
  /** Who may read a user's presence and online flag: any signed-in user ('users') or its friends ('friends'). */
  richPresenceAudience: RichPresenceAudience;
  /** Friends WebSocket address given to clients (ws:// or wss://); '' derives it from the public URL. */
  friendsWebSocketUrl: string;
  /** A friends WebSocket silent (no heartbeat) this long is closed, ms. */
  friendsIdleTimeoutMs: number;
  /** A Larder process that has not renewed its lease this long is dead: its users go offline, ms. */
  friendsLeaseMs: number;
  /** Failed password checks that lock a login (spec: 7); 0 turns the lock off (users/login-lock.ts). */
  loginLockThreshold: number;
  /** Window of those failures and length of the lock, minutes (spec: 15). */
  loginLockMinutes: number;
  /**
   * Console column option "invisible to clients", by class: fields only the master key reads
   * or queries (`email` and `mobilePhoneNumber` of `_User` by default; a user sees its own).
   */
  clientInvisibleFields: InvisibleFields;
}

/** The two friend models; '' means not chosen yet. */
export type FriendModel = '' | 'mutual' | 'follow';
/** Readers of presence: every signed-in user, or only friends (docs/friends.md). */
export type RichPresenceAudience = 'users' | 'friends';
/** shared = requester and friend, public = everyone reads, private = owner only. */
export type FriendshipAclMode = 'shared' | 'public' | 'private';

/** Settings of a new app. */
export const DEFAULT_SETTINGS: AppSettings = {
  includeACLInQueries: false,
  emailVerification: false,
  requireVerifiedEmailToLogin: false,
  emailTexts: DEFAULT_EMAIL_TEXTS,
  richPresenceSync: false,
  friendModel: '',
  friendshipACL: 'shared',
  autoFollowBack: false,
  richPresenceAudience: 'users',
  friendsWebSocketUrl: '',
  friendsIdleTimeoutMs: 90_000,
  friendsLeaseMs: 30_000,
  loginLockThreshold: 7,
  loginLockMinutes: 15,
  clientInvisibleFields: DEFAULT_INVISIBLE_FIELDS,
};

/** Loads the app's settings, filling defaults for anything not stored. */
export async function loadSettings(db: Queryable): Promise<AppSettings> {
  const rows = await db.query<{ value: Partial<AppSettings> }>(sql`SELECT value FROM _larder_meta WHERE key = 'settings'`);
  return { ...DEFAULT_SETTINGS, ...(rows[0]?.value ?? {}) };
}

/** Stores a partial change of settings and returns the result. */
export async function saveSettings(db: Queryable, change: Partial<AppSettings>): Promise<AppSettings> {
  const rows = await db.query<{ value: AppSettings }>(sql`INSERT INTO _larder_meta (key, value) VALUES ('settings', ${JSON.stringify(change)}::jsonb)
    ON CONFLICT (key) DO UPDATE SET value = _larder_meta.value || EXCLUDED.value RETURNING value`);
  return { ...DEFAULT_SETTINGS, ...rows[0].value };
}
