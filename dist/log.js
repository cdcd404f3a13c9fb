import pino from 'pino';
/** Paths that could hold secrets in a log record. */
const SECRET_KEYS = ['password', 'sessionToken', 'masterKey', 'appKey', 'serverSecret', 'smsCode', 'code', 'token', 'old_password', 'new_password'];
const SECRET_HEADERS = [
    'x-lc-key', 'x-lc-sign', 'x-lc-session', 'x-lc-hook-key', 'authorization',
    'x-avoscloud-master-key', 'x-avoscloud-application-key', 'x-avoscloud-session-token', 'x-avoscloud-request-sign',
    'x-uluru-master-key', 'x-uluru-application-key', 'x-uluru-session-token', 'x-uluru-request-sign',
];
/** Paths that could hold secrets in a log record: top level and two levels down, and request headers. */
export const REDACT_PATHS = [
    ...SECRET_HEADERS.map((h) => `req.headers["${h}"]`),
    ...SECRET_HEADERS.map((h) => `headers["${h}"]`),
    ...SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
];
/** Creates the process logger at the given level, writing to `destination` (stdout default). */
export function createLogger(level, destination) {
    return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } }, destination);
}
//# sourceMappingURL=log.js.map