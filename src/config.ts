import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** One setting: its env var, CLI flag, config-file key, default and help text. */
export interface Setting {
  readonly key: string;
  readonly env: string;
  readonly flag: string;
  readonly help: string;
  readonly kind: 'string' | 'int';
  readonly default?: string | number;
  /** Largest accepted value of an int setting. */
  readonly max?: number;
}

/** Command-line flags that are not settings but are understood by main. */
const OTHER_FLAGS = new Set(['--config', '--version']);

/**
 * Every setting, in the order `larder --help` lists them: the one table of the process settings.
 * `Config` (its type) and `loadConfig` (its values) are derived from it, and `larder --help`
 * prints it: a setting is added in this one place.
 */
const TABLE = [
  { key: 'port', env: 'LARDER_PORT', flag: '--port', kind: 'int', default: 3000, max: 65535, help: 'HTTP port' },
  { key: 'host', env: 'LARDER_HOST', flag: '--host', kind: 'string', default: '127.0.0.1', help: 'address to listen on (0.0.0.0: every interface)' },
  { key: 'dataDir', env: 'LARDER_DATA_DIR', flag: '--data-dir', kind: 'string', default: './data', help: 'embedded database directory (ignored with DATABASE_URL)' },
  { key: 'databaseUrl', env: 'DATABASE_URL', flag: '--database-url', kind: 'string', help: 'PostgreSQL URL; when set, PostgreSQL is used instead of the embedded engine' },
  { key: 'dbSchema', env: 'LARDER_DB_SCHEMA', flag: '--db-schema', kind: 'string', default: 'larder', help: 'PostgreSQL schema for the app tables' },
  { key: 'appId', env: 'LARDER_APP_ID', flag: '--app-id', kind: 'string', help: 'app id (generated on first start when unset)' },
  { key: 'appKey', env: 'LARDER_APP_KEY', flag: '--app-key', kind: 'string', help: 'app key (generated on first start when unset)' },
  { key: 'masterKey', env: 'LARDER_MASTER_KEY', flag: '--master-key', kind: 'string', help: 'master key (generated on first start when unset)' },
  { key: 'masterSignWindowMs', env: 'LARDER_MASTER_SIGN_WINDOW_MS', flag: '--master-sign-window-ms', kind: 'int', default: 15 * 60 * 1000, help: 'accepted clock skew of master-key signatures' },
  { key: 'publicUrl', env: 'LARDER_PUBLIC_URL', flag: '--public-url', kind: 'string', help: 'public base URL, e.g. https://api.example.com' },
  { key: 'workers', env: 'LARDER_WORKERS', flag: '--workers', kind: 'int', default: 1, help: 'worker processes (PostgreSQL only; 0 = one per core)' },
  { key: 'poolSize', env: 'LARDER_POOL_SIZE', flag: '--pool-size', kind: 'int', default: 16, help: 'PostgreSQL connections per process' },
  { key: 'statementTimeoutMs', env: 'LARDER_STATEMENT_TIMEOUT_MS', flag: '--statement-timeout-ms', kind: 'int', default: 10000, help: 'longest a statement may run, ms, on either engine (code 124 after it)' },
  { key: 'heavyQuerySlots', env: 'LARDER_HEAVY_QUERY_SLOTS', flag: '--heavy-query-slots', kind: 'int', max: 10000, help: 'class queries (find, count) that may run at once per process; the rest wait (124 after the statement timeout) so cheap requests keep connections (default: half of --pool-size; 1 embedded)' },
  { key: 'logLevel', env: 'LARDER_LOG_LEVEL', flag: '--log-level', kind: 'string', default: 'info', help: 'fatal|error|warn|info|debug|trace|silent' },
  { key: 'bodyLimitBytes', env: 'LARDER_BODY_LIMIT', flag: '--body-limit', kind: 'int', default: 20 * 1024 * 1024, help: 'maximum request body in bytes' },
  { key: 'smtpUrl', env: 'LARDER_SMTP_URL', flag: '--smtp-url', kind: 'string', help: 'SMTP server for outgoing mail, e.g. smtp://user:pass@host:587 (smtps:// for TLS)' },
  { key: 'mailFrom', env: 'LARDER_MAIL_FROM', flag: '--mail-from', kind: 'string', help: 'sender address of outgoing mail (required with LARDER_SMTP_URL)' },
  { key: 'smsSender', env: 'LARDER_SMS_SENDER', flag: '--sms-sender', kind: 'string', help: 'none|log|webhook; default webhook when LARDER_SMS_WEBHOOK_URL is set, else none' },
  { key: 'smsWebhookUrl', env: 'LARDER_SMS_WEBHOOK_URL', flag: '--sms-webhook-url', kind: 'string', help: 'URL the webhook SMS sender POSTs each code to' },
  { key: 'smsWebhookSecret', env: 'LARDER_SMS_WEBHOOK_SECRET', flag: '--sms-webhook-secret', kind: 'string', help: 'key of the X-Larder-Signature HMAC of webhook bodies' },
  { key: 'smsWebhookTimeoutMs', env: 'LARDER_SMS_WEBHOOK_TIMEOUT_MS', flag: '--sms-webhook-timeout-ms', kind: 'int', default: 5000, max: 60000, help: 'how long the webhook SMS sender waits' },
  { key: 'exportDir', env: 'LARDER_EXPORT_DIR', flag: '--export-dir', kind: 'string', help: 'directory of data export archives (default <data dir>/exports; a temp dir on PostgreSQL)' },
  { key: 'exportLinkTtlHours', env: 'LARDER_EXPORT_LINK_TTL_HOURS', flag: '--export-link-ttl-hours', kind: 'int', default: 168, max: 8760, help: 'how long an export download link works, hours' },
  { key: 'liveQueryWindowMs', env: 'LARDER_LIVEQUERY_WINDOW_MS', flag: '--livequery-window-ms', kind: 'int', default: 60_000, max: 3_600_000, help: 'how long a LiveQuery client may be away and still get the events it missed' },
  { key: 'liveQueryLeaseMs', env: 'LARDER_LIVEQUERY_LEASE_MS', flag: '--livequery-lease-ms', kind: 'int', default: 15_000, max: 600_000, help: 'a LiveQuery process not renewing its lease this long counts as crashed' },
  { key: 'engineUrl', env: 'LARDER_ENGINE_URL', flag: '--engine-url', kind: 'string', help: 'URL of the LeanEngine app serving cloud functions and hooks (docs/cloud-code.md)' },
  { key: 'engineStagingUrl', env: 'LARDER_ENGINE_STAGING_URL', flag: '--engine-staging-url', kind: 'string', help: 'URL of the staging engine (X-LC-Prod: 0); default the production one' },
  { key: 'hookKey', env: 'LARDER_HOOK_KEY', flag: '--hook-key', kind: 'string', help: 'hook key shared with the engine (generated on first start when unset)' },
  { key: 'engineDir', env: 'LARDER_ENGINE_DIR', flag: '--engine', kind: 'string', help: 'directory of a LeanEngine app to start (npm start) and supervise' },
  { key: 'engineFunctionTimeoutMs', env: 'LARDER_ENGINE_FUNCTION_TIMEOUT_MS', flag: '--engine-function-timeout-ms', kind: 'int', default: 15000, max: 600000, help: 'cloud function timeout (503, code 124)' },
  { key: 'engineBeforeHookTimeoutMs', env: 'LARDER_ENGINE_BEFORE_HOOK_TIMEOUT_MS', flag: '--engine-before-hook-timeout-ms', kind: 'int', default: 10000, max: 600000, help: 'before-hook timeout (code 141)' },
  { key: 'engineHookTimeoutMs', env: 'LARDER_ENGINE_HOOK_TIMEOUT_MS', flag: '--engine-hook-timeout-ms', kind: 'int', default: 3000, max: 600000, help: 'timeout of after-hooks and user hooks (code 141)' },
  { key: 'engineRefreshSeconds', env: 'LARDER_ENGINE_REFRESH_SECONDS', flag: '--engine-refresh-seconds', kind: 'int', default: 60, max: 86400, help: "how often the engine's hook list is read again (0 = never)" },
  { key: 'exportPageDelayMs', env: 'LARDER_EXPORT_PAGE_DELAY_MS', flag: '--export-page-delay-ms', kind: 'int', default: 0, max: 60000, help: 'pause between pages of 1000 objects while exporting' },
  { key: 'corsOrigins', env: 'LARDER_CORS_ORIGINS', flag: '--cors-origins', kind: 'string', default: '*', help: 'browser origins allowed by CORS: * (any, without credentials) or a comma list such as https://app.example.com (with credentials)' },
  { key: 'embeddedSliceMs', env: 'LARDER_EMBEDDED_SLICE_MS', flag: '--embedded-slice-ms', kind: 'int', default: 1000, max: 3_600_000, help: 'embedded engine: a statement holding it longer while other requests wait is cancelled (124); 0 = only the statement timeout' },
  { key: 'trustProxy', env: 'LARDER_TRUST_PROXY', flag: '--trust-proxy', kind: 'string', help: 'reverse proxies whose X-Forwarded-* headers are believed: true, a hop count, or addresses/CIDRs (unset: none)' },
  { key: 'rateLimitPerIp', env: 'LARDER_RATE_LIMIT_PER_IP', flag: '--rate-limit-per-ip', kind: 'int', default: 6000, max: 100_000_000, help: 'requests (batch items each count) one client address may make per window; 429 past it; 0 = no limit (docs/security.md)' },
  { key: 'rateLimitPerSession', env: 'LARDER_RATE_LIMIT_PER_SESSION', flag: '--rate-limit-per-session', kind: 'int', default: 1800, max: 100_000_000, help: 'requests one session token may make per window; 0 = no limit' },
  { key: 'rateLimitWindowMs', env: 'LARDER_RATE_LIMIT_WINDOW_MS', flag: '--rate-limit-window-ms', kind: 'int', default: 60000, max: 86_400_000, help: 'length of the rate-limit window, ms' },
  { key: 'filesDir', env: 'LARDER_FILES_DIR', flag: '--files-dir', kind: 'string', help: 'directory of uploaded files, local backend (default <data dir>/files)' },
  { key: 'filesBackend', env: 'LARDER_FILES_BACKEND', flag: '--files-backend', kind: 'string', default: 'local', help: 'where file bytes live: local|s3 (docs/files.md)' },
  { key: 'fileMaxBytes', env: 'LARDER_FILE_MAX_BYTES', flag: '--file-max-bytes', kind: 'int', default: 100 * 1024 * 1024, help: 'largest file accepted, bytes' },
  { key: 'filesPublicUrl', env: 'LARDER_FILES_PUBLIC_URL', flag: '--files-public-url', kind: 'string', help: 'base URL of file urls, e.g. a CDN (default <public url>/files)' },
  { key: 'fileTokenTtlSeconds', env: 'LARDER_FILE_TOKEN_TTL', flag: '--file-token-ttl', kind: 'int', default: 3600, max: 7 * 24 * 3600, help: 'how long an upload token is valid, seconds' },
  { key: 's3Endpoint', env: 'LARDER_S3_ENDPOINT', flag: '--s3-endpoint', kind: 'string', help: 'S3-compatible endpoint URL (unset = AWS S3)' },
  { key: 's3Region', env: 'LARDER_S3_REGION', flag: '--s3-region', kind: 'string', default: 'us-east-1', help: 'S3 region' },
  { key: 's3Bucket', env: 'LARDER_S3_BUCKET', flag: '--s3-bucket', kind: 'string', help: 'S3 bucket of file bytes (required with --files-backend s3)' },
  { key: 's3ForcePathStyle', env: 'LARDER_S3_FORCE_PATH_STYLE', flag: '--s3-force-path-style', kind: 'string', help: 'true = path-style bucket URLs (most self-hosted S3 servers; default false)' },
  { key: 's3AccessKeyId', env: 'LARDER_S3_ACCESS_KEY_ID', flag: '--s3-access-key-id', kind: 'string', help: 'S3 access key id (unset = the AWS SDK default chain, e.g. AWS_ACCESS_KEY_ID)' },
  { key: 's3SecretAccessKey', env: 'LARDER_S3_SECRET_ACCESS_KEY', flag: '--s3-secret-access-key', kind: 'string', help: 'S3 secret access key' },
  { key: 'thumbnailMaxInputBytes', env: 'LARDER_THUMBNAIL_MAX_INPUT_BYTES', flag: '--thumbnail-max-input-bytes', kind: 'int', default: 30 * 1024 * 1024, help: 'largest image a thumbnail is made from, bytes' },
  { key: 'thumbnailCacheMaxBytes', env: 'LARDER_THUMBNAIL_CACHE_MAX_BYTES', flag: '--thumbnail-cache-max-bytes', kind: 'int', default: 1024 * 1024 * 1024, help: 'size cap of the thumbnail disk cache, bytes; least recently used go first (0: no cache)' },
  { key: 'thumbnailMaxPixels', env: 'LARDER_THUMBNAIL_MAX_PIXELS', flag: '--thumbnail-max-pixels', kind: 'int', default: 50_000_000, help: 'largest image a thumbnail is made from, pixels (width x height)' },
  { key: 'thumbnailSlots', env: 'LARDER_THUMBNAIL_SLOTS', flag: '--thumbnail-slots', kind: 'int', default: 2, max: 256, help: 'thumbnails one process makes at once (one core each); 16 more wait up to 10 s, then 429' },
  { key: 'authDataVerifiers', env: 'LARDER_AUTH_DATA_VERIFIERS', flag: '--auth-data-verifiers', kind: 'string', help: 'JSON {platform: webhook URL | {url,secret,timeoutMs} | {module}} checking authData (docs/users.md)' },
  { key: 'metricsPort', env: 'LARDER_METRICS_PORT', flag: '--metrics-port', kind: 'int', default: 0, max: 65535, help: 'port of a separate listener serving only GET /metrics (0: none); with --workers it covers every worker' },
  { key: 'metricsHost', env: 'LARDER_METRICS_HOST', flag: '--metrics-host', kind: 'string', default: '127.0.0.1', help: 'address of the metrics listener (LARDER_METRICS_PORT)' },
  { key: 'metricsToken', env: 'LARDER_METRICS_TOKEN', flag: '--metrics-token', kind: 'string', help: 'bearer token that may read /metrics (the master key always may)' },
  { key: 'requestLog', env: 'LARDER_REQUEST_LOG', flag: '--request-log', kind: 'string', help: 'on|off: log every request at info level (request id, path without query, status, ms); default off' },
] as const satisfies readonly Setting[];

/** The table, as the loader and `larder --help` read it. */
export const SETTINGS: readonly (Setting & { readonly key: keyof Config })[] = TABLE;

type Row = (typeof TABLE)[number];
/** The value type of a setting: numbers for int settings, text otherwise (undefined without a default). */
type ValueOf<R extends Row> = R extends { kind: 'int' } ? number : R extends { default: string } ? string : string | undefined;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Typed configuration, read once at start-up. Nothing else reads process.env. */
export type Config = { -readonly [R in Row as R['key']]: ValueOf<R> } & { logLevel: (typeof LOG_LEVELS)[number] };

/** A configuration mistake an operator can fix; main prints it and exits 2. */
export class ConfigError extends Error {}

function coerce(setting: Setting, raw: unknown, source: string): string | number {
  if (setting.kind === 'int') {
    // Digits only: Number() would also take ' ' (0), '0x50' and '1e3'.
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${source}: ${setting.env} must be a non-negative integer, got ${JSON.stringify(raw)}`);
    if (setting.max !== undefined && n > setting.max) throw new ConfigError(`${source}: ${setting.env} must be at most ${setting.max}, got ${n}`);
    return n;
  }
  if (typeof raw !== 'string' || raw === '') throw new ConfigError(`${source}: ${setting.env} must be a non-empty string`);
  return raw;
}

/**
 * Builds the config from, lowest precedence first: defaults, the config file (JSON, from
 * `--config` or LARDER_CONFIG), environment variables, CLI flags.
 */
export function loadConfig(env: NodeJS.ProcessEnv, flags: Record<string, string>): Config {
  const values: Record<string, string | number | undefined> = {};
  for (const s of SETTINGS) values[s.key] = s.default;
  const file = flags['--config'] ?? env.LARDER_CONFIG;
  if (file) {
    const path = resolve(file);
    if (!existsSync(path)) throw new ConfigError(`config file not found: ${path}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new ConfigError(`config file ${path} is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`config file ${path} must hold a JSON object`);
    const known = new Map(SETTINGS.flatMap((s) => [[s.key as string, s], [s.env, s]]));
    for (const [k, v] of Object.entries(parsed)) {
      const s = known.get(k);
      if (!s) throw new ConfigError(`config file ${path}: unknown setting "${k}"`);
      values[s.key] = coerce(s, v, path);
    }
  }
  for (const s of SETTINGS) {
    const raw = env[s.env];
    if (raw !== undefined && raw !== '') values[s.key] = coerce(s, raw, 'environment');
  }
  // A mistyped flag (--prot 8080) must not be ignored silently.
  const flagNames = new Set(SETTINGS.map((s) => s.flag));
  for (const f of Object.keys(flags)) if (!flagNames.has(f) && !OTHER_FLAGS.has(f)) throw new ConfigError(`unknown option ${f}`);
  for (const s of SETTINGS) {
    const raw = flags[s.flag];
    if (raw !== undefined) values[s.key] = coerce(s, raw, 'command line');
  }
  const logLevel = String(values.logLevel);
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError(`LARDER_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  if (!isSchemaName(String(values.dbSchema))) throw new ConfigError('LARDER_DB_SCHEMA must be a plain identifier');
  // Every key of the table got its default, a file, environment or flag value, coerced to its kind.
  return values as Config;
}

/** A PostgreSQL schema name Larder accepts (LARDER_DB_SCHEMA, `larder backup move --to-schema`). */
export function isSchemaName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(name);
}

/**
 * Checks a URL setting (used by the components that own one, e.g. the mailer): undefined stays
 * undefined; anything else must parse and use one of `protocols` (e.g. ['smtp:', 'smtps:']).
 */
export function urlSetting(env: string, raw: string | undefined, protocols: readonly string[]): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${env} is not a URL`);
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(`${env} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  return raw;
}
