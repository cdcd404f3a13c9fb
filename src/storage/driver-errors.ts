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
  const make = state ? CLIENT_STATES[state] : undefined;
  if (!make) return err;
  const message = typeof err === 'object' && err !== null && 'message' in err ? String((err as { message: unknown }).message) : '';
  const api = make(message);
  (api as { cause?: unknown }).cause = err;
  return api;
}
