import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
/** Command-line flags that are not settings but are understood by main. */
const OTHER_FLAGS = new Set(['--config', '--version']);
/** Every setting, in the order `larder --help` lists them. */
export const SETTINGS = [
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
    { key: 'statementTimeoutMs', env: 'LARDER_STATEMENT_TIMEOUT_MS', flag: '--statement-timeout-ms', kind: 'int', default: 10000, help: 'PostgreSQL statement timeout' },
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
    { key: 'exportPageDelayMs', env: 'LARDER_EXPORT_PAGE_DELAY_MS', flag: '--export-page-delay-ms', kind: 'int', default: 0, max: 60000, help: 'pause between pages of 1000 objects while exporting' },
    { key: 'corsOrigins', env: 'LARDER_CORS_ORIGINS', flag: '--cors-origins', kind: 'string', default: '*', help: 'browser origins allowed by CORS: * (any, without credentials) or a comma list such as https://app.example.com (with credentials)' },
    { key: 'trustProxy', env: 'LARDER_TRUST_PROXY', flag: '--trust-proxy', kind: 'string', help: 'reverse proxies whose X-Forwarded-* headers are believed: true, a hop count, or addresses/CIDRs (unset: none)' },
    { key: 'authDataVerifiers', env: 'LARDER_AUTH_DATA_VERIFIERS', flag: '--auth-data-verifiers', kind: 'string', help: 'JSON {platform: webhook URL | {url,secret,timeoutMs} | {module}} checking authData (docs/users.md)' },
    { key: 'metricsToken', env: 'LARDER_METRICS_TOKEN', flag: '--metrics-token', kind: 'string', help: 'bearer token that may read /metrics (the master key always may)' },
    { key: 'requestLog', env: 'LARDER_REQUEST_LOG', flag: '--request-log', kind: 'string', help: 'on|off: log every request at info level (request id, path without query, status, ms); default off' },
];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** A configuration mistake an operator can fix; main prints it and exits 2. */
export class ConfigError extends Error {
}
function coerce(setting, raw, source) {
    if (setting.kind === 'int') {
        // Digits only: Number() would also take ' ' (0), '0x50' and '1e3'.
        const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
        if (!Number.isInteger(n) || n < 0)
            throw new ConfigError(`${source}: ${setting.env} must be a non-negative integer, got ${JSON.stringify(raw)}`);
        if (setting.max !== undefined && n > setting.max)
            throw new ConfigError(`${source}: ${setting.env} must be at most ${setting.max}, got ${n}`);
        return n;
    }
    if (typeof raw !== 'string' || raw === '')
        throw new ConfigError(`${source}: ${setting.env} must be a non-empty string`);
    return raw;
}
/**
 * Builds the config from, lowest precedence first: defaults, the config file (JSON, from
 * `--config` or LARDER_CONFIG), environment variables, CLI flags.
 */
export function loadConfig(env, flags) {
    const values = {};
    for (const s of SETTINGS)
        values[s.key] = s.default;
    const file = flags['--config'] ?? env.LARDER_CONFIG;
    if (file) {
        const path = resolve(file);
        if (!existsSync(path))
            throw new ConfigError(`config file not found: ${path}`);
        let parsed;
        try {
            parsed = JSON.parse(readFileSync(path, 'utf8'));
        }
        catch (err) {
            throw new ConfigError(`config file ${path} is not valid JSON: ${err.message}`);
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
            throw new ConfigError(`config file ${path} must hold a JSON object`);
        const known = new Map(SETTINGS.flatMap((s) => [[s.key, s], [s.env, s]]));
        for (const [k, v] of Object.entries(parsed)) {
            const s = known.get(k);
            if (!s)
                throw new ConfigError(`config file ${path}: unknown setting "${k}"`);
            values[s.key] = coerce(s, v, path);
        }
    }
    for (const s of SETTINGS) {
        const raw = env[s.env];
        if (raw !== undefined && raw !== '')
            values[s.key] = coerce(s, raw, 'environment');
    }
    // A mistyped flag (--prot 8080) must not be ignored silently.
    const flagNames = new Set(SETTINGS.map((s) => s.flag));
    for (const f of Object.keys(flags))
        if (!flagNames.has(f) && !OTHER_FLAGS.has(f))
            throw new ConfigError(`unknown option ${f}`);
    for (const s of SETTINGS) {
        const raw = flags[s.flag];
        if (raw !== undefined)
            values[s.key] = coerce(s, raw, 'command line');
    }
    const logLevel = String(values.logLevel);
    if (!LOG_LEVELS.includes(logLevel))
        throw new ConfigError(`LARDER_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(String(values.dbSchema)))
        throw new ConfigError('LARDER_DB_SCHEMA must be a plain identifier');
    return {
        port: values.port,
        host: values.host,
        dataDir: values.dataDir,
        databaseUrl: values.databaseUrl,
        dbSchema: values.dbSchema,
        appId: values.appId,
        appKey: values.appKey,
        masterKey: values.masterKey,
        masterSignWindowMs: values.masterSignWindowMs,
        publicUrl: values.publicUrl,
        workers: values.workers,
        poolSize: values.poolSize,
        statementTimeoutMs: values.statementTimeoutMs,
        logLevel: logLevel,
        bodyLimitBytes: values.bodyLimitBytes,
        smtpUrl: values.smtpUrl,
        mailFrom: values.mailFrom,
        smsSender: values.smsSender,
        smsWebhookUrl: values.smsWebhookUrl,
        smsWebhookSecret: values.smsWebhookSecret,
        smsWebhookTimeoutMs: values.smsWebhookTimeoutMs,
        exportDir: values.exportDir,
        exportLinkTtlHours: values.exportLinkTtlHours,
        exportPageDelayMs: values.exportPageDelayMs,
        corsOrigins: values.corsOrigins,
        trustProxy: values.trustProxy,
        authDataVerifiers: values.authDataVerifiers,
        metricsToken: values.metricsToken,
        requestLog: values.requestLog,
    };
}
/**
 * Checks a URL setting (used by the components that own one, e.g. the mailer): undefined stays
 * undefined; anything else must parse and use one of `protocols` (e.g. ['smtp:', 'smtps:']).
 */
export function urlSetting(env, raw, protocols) {
    if (raw === undefined)
        return undefined;
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        throw new ConfigError(`${env} is not a URL`);
    }
    if (!protocols.includes(url.protocol))
        throw new ConfigError(`${env} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
    return raw;
}
//# sourceMappingURL=config.js.map