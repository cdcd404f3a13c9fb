import { urlSetting, type Config } from '../config.ts';

/** How Larder reaches the app's LeanEngine (docs/cloud-code.md). */
export interface CloudOptions {
  /** Base URL of the production engine, e.g. http://127.0.0.1:3001. */
  readonly engineUrl: string;
  /** Base URL of the staging engine (X-LC-Prod: 0); the production one when absent. */
  readonly stagingUrl?: string;
  /** Cloud function timeout, ms (then 503, code 124). */
  readonly functionTimeoutMs: number;
  /** Before-hook timeout, ms (then code 141). */
  readonly beforeHookTimeoutMs: number;
  /** After-hook and user-hook timeout, ms (then code 141). */
  readonly hookTimeoutMs: number;
  /** Period of re-reading the engine's hook list, s; 0 = at start and on refresh only. */
  readonly refreshSeconds: number;
  /** Largest function request body and answer, bytes (LARDER_BODY_LIMIT). */
  readonly bodyLimitBytes: number;
}

/** Default timeouts of LeanCloud: 15 s functions, 10 s before-hooks, 3 s other hooks. */
export const CLOUD_DEFAULTS = { functionTimeoutMs: 15_000, beforeHookTimeoutMs: 10_000, hookTimeoutMs: 3_000, refreshSeconds: 60 } as const;

/** Cloud options from the config; undefined when no engine is configured. Checks the URLs. */
export function cloudOptionsFromConfig(config: Config, engineUrl = config.engineUrl): CloudOptions | undefined {
  const url = urlSetting('LARDER_ENGINE_URL', engineUrl, ['http:', 'https:']);
  const staging = urlSetting('LARDER_ENGINE_STAGING_URL', config.engineStagingUrl, ['http:', 'https:']);
  if (!url) return undefined;
  return {
    engineUrl: url,
    stagingUrl: staging,
    functionTimeoutMs: config.engineFunctionTimeoutMs,
    beforeHookTimeoutMs: config.engineBeforeHookTimeoutMs,
    hookTimeoutMs: config.engineHookTimeoutMs,
    refreshSeconds: config.engineRefreshSeconds,
    bodyLimitBytes: config.bodyLimitBytes,
  };
}
