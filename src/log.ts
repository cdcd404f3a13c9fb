import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';

/** The structured logger (JSON lines). Secrets are redacted wherever they might appear. */
export type Logger = FastifyBaseLogger;

/** Paths that could hold secrets in a log record. */
export const REDACT_PATHS = [
  'req.headers["x-lc-key"]', 'req.headers["x-lc-sign"]', 'req.headers["x-lc-session"]',
  'req.headers["x-avoscloud-master-key"]', 'req.headers["x-avoscloud-application-key"]',
  'req.headers["x-avoscloud-session-token"]', 'req.headers.authorization',
  '*.password', '*.sessionToken', '*.masterKey', '*.appKey', '*.serverSecret',
];

/** Creates the process logger at the given level, writing to `destination` (stdout default). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } }, destination);
}
