/**
 * The one list of app settings (the console options LeanCloud kept per app): each with its
 * default, its one-line doc and its rules. The core declares its own (settings/core-settings.ts);
 * a module declares its own through src/module-api/settings.ts. GET /1.1/larder/settings lists
 * every declared setting, a change is checked against this list (admin/change-settings.ts),
 * and docs/admin.md is kept in sync with it by test/docs/settings-doc.test.ts.
 */
import { ApiError } from '../errors/api-error.ts';

/** One setting. The default also fixes the type a change must have. */
export interface SettingSpec<T> {
  readonly default: T;
  /** One line for operators (docs/admin.md carries the long form). */
  readonly doc: string;
  /** A text setting must be one of these. */
  readonly choices?: readonly string[];
  /** A number setting must be an integer in this range (inclusive). */
  readonly range?: readonly [number, number];
  /** Replaces the shape check for settings with their own change rules; throws ApiError. */
  parse?(change: unknown, current: T): T;
  /** A rule beyond type, choices and range (e.g. "chosen once"); throws ApiError. */
  check?(value: T, current: T): void;
}

/** Declared settings by name. */
export type SettingSpecs = Readonly<Record<string, SettingSpec<unknown>>>;

/** The values of some declared settings. */
export type SettingValues<S extends SettingSpecs> = { -readonly [K in keyof S]: S[K] extends SettingSpec<infer T> ? T : never };

/** An entry of the catalogue with the part of Larder that declared it. */
export interface CatalogueEntry {
  readonly key: string;
  readonly owner: string;
  readonly spec: SettingSpec<unknown>;
}

// A code-level list, like the error catalogue: the same for every app; values live per app.
const catalogue = new Map<string, CatalogueEntry>();

/** Typed reading of one owner's settings from an app's current settings. */
export interface SettingsHandle<S extends SettingSpecs> {
  readonly specs: S;
  /** The owner's values in `settings` (loadSettings fills defaults, so every key is there). */
  of(settings: Readonly<Record<string, unknown>>): SettingValues<S>;
}

/**
 * Declares settings. Names are global (one settings object per app): a name another owner has
 * declared is refused. Declaring the same owner's list again (a module imported twice) is a no-op.
 */
export function declareSettings<S extends SettingSpecs>(owner: string, specs: S): SettingsHandle<S> {
  for (const [key, spec] of Object.entries(specs)) {
    const known = catalogue.get(key);
    if (known && known.owner !== owner) throw new Error(`setting ${key} of ${owner} is already declared by ${known.owner}`);
    catalogue.set(key, { key, owner, spec });
  }
  return { specs, of: (settings) => settings as SettingValues<S> };
}

/** Every declared setting, in declaration order (core first). */
export function settingCatalogue(): readonly CatalogueEntry[] {
  return [...catalogue.values()];
}

/** One declared setting, if known. */
export function settingEntry(key: string): CatalogueEntry | undefined {
  return catalogue.get(key);
}

/** The defaults of every declared setting. */
export function settingDefaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of catalogue.values()) out[e.key] = e.spec.default;
  return out;
}

/** The refusal of a setting change (`Invalid app setting: <detail>.`). */
export function invalidSetting(detail: string): ApiError {
  return new ApiError('invalidSetting', `Invalid app setting: ${detail}.`);
}
