import { ApiError } from '../errors/api-error.ts';
import { statementTimeouts } from '../metrics/core-metrics.ts';

/** PostgreSQL SQLSTATEs that are the client's fault, mapped to catalogue errors. */
const CLIENT_STATES: Record<string, (driverMessage: string) => ApiError> = {
  '23505': () => new ApiError('duplicateValue'),
  '2201B': () => new ApiError('invalidQuery', 'Invalid regular expression.'),
  '57014': () => {
    statementTimeouts.inc();
    return new ApiError('timeout');
  },
  '22P02': () => new ApiError('invalidQuery', 'Invalid value in query.'),
  '22003': () => new ApiError('incorrectType', 'Numeric value out of range.'),
  '22023': () => new ApiError('invalidQuery', 'Invalid parameter value.'),
  '54001': () => new ApiError('invalidQuery', 'Query is too complex.'),
  // Raised by our jsonb functions when an __op meets a stored value of another type.
  LR111: (m) => new ApiError('incorrectType', m),
  '22P05': () => new ApiError('invalidJson', 'Strings may not contain NUL characters.'),
  '22021': () => new ApiError('invalidJson', 'Invalid character in string.'),
};

/**
 * The database is down, restarting or was cut off: SQLSTATEs of an administrator shutdown, a
 * server starting up or a lost connection, and the node-postgres errors of a socket that could
 * not connect or closed mid-statement (these carry no SQLSTATE). The client gets 503 and can
 * retry; the pool opens new connections by itself once the server is back.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'ETIMEDOUT']);
const UNAVAILABLE_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Connection ended)/;

/** The driver error's SQLSTATE, when it has one. */
export function sqlState(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** Translates a driver error; unknown ones pass through unchanged (they become 500s). */
export function translateDriverError(err: unknown): unknown {
  const state = sqlState(err);
  const message = typeof err === 'object' && err !== null && 'message' in err ? String((err as { message: unknown }).message) : '';
  if ((state !== undefined && UNAVAILABLE_STATES.has(state)) || (state === undefined && UNAVAILABLE_MESSAGES.test(message))) {
    return Object.assign(new ApiError('databaseUnavailable'), { cause: err });
  }
  const make = state && Object.hasOwn(CLIENT_STATES, state) ? CLIENT_STATES[state] : undefined;
  if (!make) return err;
  const api = make(message);
  (api as { cause?: unknown }).cause = err;
  return api;
}
