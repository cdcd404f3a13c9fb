import { ERRORS, type ErrorName, type ErrorSpec } from './error-codes.ts';

/** A catalogue entry that names itself: how module errors (errors/module-errors.ts) arrive here. */
interface SelfNamedSpec extends ErrorSpec {
  readonly name: string;
}

/** The one error type that crosses layers; the HTTP layer turns it into status + {code, error}. */
export class ApiError extends Error {
  readonly code: number;
  readonly status: number;
  /** The catalogue name: a core ErrorName, or a name a module declared. */
  readonly errorName: ErrorName | (string & {});

  constructor(name: ErrorName | SelfNamedSpec, message?: string) {
    const spec: ErrorSpec = typeof name === 'string' ? ERRORS[name] : name;
    super(message ?? spec.message);
    this.errorName = typeof name === 'string' ? name : name.name;
    this.code = spec.code;
    this.status = spec.status;
  }

  /** The wire body of this error. */
  toJSON(): { code: number; error: string } {
    return { code: this.code, error: this.message };
  }
}

/** Throws the named error; for use in expressions. */
export function fail(name: ErrorName, message?: string): never {
  throw new ApiError(name, message);
}

/** True when the value is an ApiError. */
export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
