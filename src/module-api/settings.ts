/**
 * Module surface: app settings. A module declares its settings in the one catalogue
 * (settings/setting-catalogue.ts) and reads them, typed, through the handle it gets back.
 */
export type { AppContext } from '../app-context.ts';
export { declareSettings, invalidSetting, type SettingSpec, type SettingValues, type SettingsHandle } from '../settings/setting-catalogue.ts';
