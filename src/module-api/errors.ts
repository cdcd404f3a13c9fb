/**
 * Module surface: errors. Core errors by name (`new ApiError('invalidJson')`); a module's own
 * errors are declared once with `defineErrors` and listed in docs/errors.md with the core's.
 */
export { ApiError, fail, isApiError } from '../errors/api-error.ts';
export type { ErrorName, ErrorSpec } from '../errors/error-codes.ts';
export { defineErrors, type ErrorFactory, type ErrorRow } from '../errors/module-errors.ts';
