import { DEFAULT_EMAIL_TEXTS, type EmailTexts } from './email-texts.ts';
import { changeInvisibleFields, DEFAULT_INVISIBLE_FIELDS, type InvisibleFields } from '../model/invisible-fields.ts';
import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';
import { declareSettings, settingDefaults, type SettingValues } from './setting-catalogue.ts';

/**
 * The core's per-app settings (console options LeanCloud kept per app). Stored in the database
 * so that every process of one app sees the same values. Modules declare theirs the same way
 * (src/module-api/settings.ts); docs/admin.md documents each.
 */
const CORE_SETTINGS = declareSettings('core', {
  includeACLInQueries: { default: false, doc: 'Console option "include ACL with queried objects": needed for returnACL=true.' },
  emailVerification: { default: false, doc: 'Console option "verify email of new users": mails a link whenever an email is set or changed.' },
  requireVerifiedEmailToLogin: { default: false, doc: 'Console option "refuse login until the email is verified" (216).' },
  emailTexts: { default: DEFAULT_EMAIL_TEXTS as EmailTexts, doc: 'Words of the verification and reset mails and of their pages (src/mail/mail-texts.ts).' },
  loginLockThreshold: { default: 7, range: [0, 1000], doc: 'Failed password checks that lock a login (spec: 7); 0 turns the lock off (users/login-lock.ts).' },
  loginLockMinutes: { default: 15, range: [1, 24 * 60], doc: 'Window of those failures and length of the lock, minutes (spec: 15).' },
  clientInvisibleFields: {
    default: DEFAULT_INVISIBLE_FIELDS as InvisibleFields,
    doc: 'Console column option "invisible to clients", by class: fields only the master key reads or queries.',
    parse: (change: unknown, current: InvisibleFields) => changeInvisibleFields(change, current),
  },
});

/** An app's settings: the core's, typed, and those of the modules (typed by each module's handle). */
export type AppSettings = SettingValues<typeof CORE_SETTINGS.specs> & Record<string, unknown>;

/** Settings of a new app: every declared default. */
export function defaultSettings(): AppSettings {
  return settingDefaults() as AppSettings;
}

/** Loads the app's settings, filling defaults for anything not stored. */
export async function loadSettings(db: Queryable): Promise<AppSettings> {
  const rows = await db.query<{ value: Record<string, unknown> }>(sql`SELECT value FROM _larder_meta WHERE key = 'settings'`);
  return { ...defaultSettings(), ...(rows[0]?.value ?? {}) };
}

/** Stores a partial change of settings and returns the result. */
export async function saveSettings(db: Queryable, change: Readonly<Record<string, unknown>>): Promise<AppSettings> {
  const rows = await db.query<{ value: Record<string, unknown> }>(sql`INSERT INTO _larder_meta (key, value) VALUES ('settings', ${JSON.stringify(change)}::jsonb)
    ON CONFLICT (key) DO UPDATE SET value = _larder_meta.value || EXCLUDED.value RETURNING value`);
  return { ...defaultSettings(), ...rows[0].value };
}
