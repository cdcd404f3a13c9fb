import { ERRORS, type ErrorName } from './error-codes.ts';

/** The one error type that crosses layers; the HTTP layer turns it into status + {code, error}. */
export class ApiError extends Error {
  readonly code: number;
  readonly status: number;
  readonly errorName: ErrorName;

  constructor(name: ErrorName, message?: string) {
    const spec = ERRORS[name];
    super(message ?? spec.message);
    this.errorName = name;
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
