/** Module surface: process configuration helpers for a module's own options (files, LiveQuery). */
export { ConfigError, urlSetting, type Config } from '../config.ts';
