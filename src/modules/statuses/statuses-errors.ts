/**
 * The statuses module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors } from '../../module-api/errors.ts';

/** Builds a statuses error: `throw statusError('statusNotFound')`. */
export const statusError = defineErrors('statuses', {
  statusNotFound: [1, 404, 'Status not found.'],
});
