/**
 * Changing app settings (admin endpoint and CLI). A change is a partial object of known keys;
 * each value must have the type of that setting's default (booleans stay booleans, objects
 * keep their keys), unknown keys are refused, `null` resets a setting to its default. Every
 * process reloads the settings once the change is stored (auth/cache-invalidation.ts).
 */
import { invalidateSettings, type AppState } from '../auth/cache-invalidation.ts';
import { sql } from '../sql/fragment.ts';
import { loadSettings, saveSettings, type AppSettings } from '../settings/app-settings.ts';
import { invalidSetting, settingCatalogue, settingEntry, type SettingSpec } from '../settings/setting-catalogue.ts';
import { isPlainObject } from '../model/plain-object.ts';

const invalid = invalidSetting;

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Checks `value` against the shape of `model` (a default). Objects with declared keys are
 * merged into `current` so that changing one text keeps the others.
 */
function validate(path: string, value: unknown, model: unknown, current: unknown): unknown {
  if (isPlainObject(model)) {
    if (!isPlainObject(value)) throw invalid(`${path} must be an object`);
    const declared = Object.keys(model);
    const base: Record<string, unknown> = isPlainObject(current) ? { ...current } : { ...model };
    for (const [k, v] of Object.entries(value)) {
      if (declared.length && !declared.includes(k)) throw invalid(`unknown key ${path}.${k.slice(0, 64)}; known: ${declared.join(', ')}`);
      if (v === null) {
        if (declared.length) base[k] = model[k];
        else delete base[k];
        continue;
      }
      base[k] = declared.length ? validate(`${path}.${k}`, v, model[k], base[k]) : scalar(`${path}.${k}`, v);
    }
    return base;
  }
  if (model === null) return scalar(path, value);
  if (kind(value) !== kind(model)) throw invalid(`${path} must be a ${kind(model)}, not a ${kind(value)}`);
  if (typeof value === 'number' && !Number.isFinite(value)) throw invalid(`${path} must be a finite number`);
  return value;
}

function scalar(path: string, v: unknown): unknown {
  if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw invalid(`${path} must be a string, number or boolean`);
}

/** Rules beyond the shape: range, the setting's own rule, then its closed choices. */
function checkRules(key: string, value: unknown, spec: SettingSpec<unknown>, current: unknown): void {
  const range = spec.range;
  if (range && (typeof value !== 'number' || !Number.isInteger(value) || value < range[0] || value > range[1])) {
    throw invalid(`${key} must be an integer from ${range[0]} to ${range[1]}`);
  }
  // The own rule first: resetting a setting chosen for good (null -> default) must say why it is refused.
  spec.check?.(value, current);
  const choices = spec.choices;
  if (choices && !choices.includes(value as string) && value !== current) {
    throw invalid(`${key} must be one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`);
  }
}

/** Validates a change against the current settings and returns the values to store. */
export function parseSettingsChange(change: unknown, current: AppSettings): Partial<AppSettings> {
  if (!isPlainObject(change)) throw invalid('expected an object of settings');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(change)) {
    const entry = settingEntry(key);
    if (!entry) throw invalid(`unknown setting ${JSON.stringify(key.slice(0, 64))}; known: ${settingCatalogue().map((e) => e.key).join(', ')}`);
    const { spec } = entry;
    const now = current[key] ?? spec.default;
    if (value === null) out[key] = spec.default;
    else out[key] = spec.parse ? spec.parse(value, now) : validate(key, value, spec.default, now);
    checkRules(key, out[key], spec, now);
  }
  return out as Partial<AppSettings>;
}

/** The stored settings, read afresh (another process may have changed them). */
export async function readSettings(app: AppState): Promise<AppSettings> {
  app.scope.replaceSettings(await loadSettings(app.db));
  return app.scope.settings;
}

/** Applies a validated change, stores it, and makes every process reload. */
export async function changeSettings(app: AppState, change: unknown): Promise<AppSettings> {
  // Read, check and store under one lock: two concurrent first choices of the friend model must
  // not both pass the "chosen once" rule against the same unchosen state.
  const saved = await app.db.transaction(async (tx) => {
    await tx.query(sql`SELECT pg_advisory_xact_lock(hashtext(${'larder.settings.' + app.db.schema}))`);
    const current = await loadSettings(tx);
    return saveSettings(tx, parseSettingsChange(change, current));
  });
  app.scope.replaceSettings(saved);
  await invalidateSettings(app);
  return saved;
}
