/**
 * The statuses module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors, type ErrorSpec } from '../../module-api/errors.ts';

function e(code: number, status: number, message: string): ErrorSpec {
  return { code, status, message };
}

/** Builds a statuses error: `throw statusError('statusNotFound')`. */
export const statusError = defineErrors('statuses', {
  statusNotFound: e(1, 404, 'Status not found.'),
});
