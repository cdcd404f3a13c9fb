import { DEFAULT_EMAIL_TEXTS } from '../mail/mail-texts.js';
import { sql } from '../sql/fragment.js';
/** Settings of a new app. */
export const DEFAULT_SETTINGS = {
    includeACLInQueries: false,
    emailVerification: false,
    requireVerifiedEmailToLogin: false,
    emailTexts: DEFAULT_EMAIL_TEXTS,
    richPresenceSync: false,
    friendModel: '',
    friendshipACL: 'shared',
    autoFollowBack: false,
    friendsWebSocketUrl: '',
    friendsIdleTimeoutMs: 90_000,
    friendsLeaseMs: 30_000,
};
/** Loads the app's settings, filling defaults for anything not stored. */
export async function loadSettings(db) {
    const rows = await db.query(sql `SELECT value FROM _larder_meta WHERE key = 'settings'`);
    return { ...DEFAULT_SETTINGS, ...(rows[0]?.value ?? {}) };
}
/** Stores a partial change of settings and returns the result. */
export async function saveSettings(db, change) {
    const rows = await db.query(sql `INSERT INTO _larder_meta (key, value) VALUES ('settings', ${JSON.stringify(change)}::jsonb)
    ON CONFLICT (key) DO UPDATE SET value = _larder_meta.value || EXCLUDED.value RETURNING value`);
    return { ...DEFAULT_SETTINGS, ...rows[0].value };
}
//# sourceMappingURL=app-settings.js.map