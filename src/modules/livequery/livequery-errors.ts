/**
 * The LiveQuery module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors } from '../../module-api/errors.ts';

/** Builds a LiveQuery error: `throw liveQueryError('liveQueryInnerQuery')`. */
export const liveQueryError = defineErrors('livequery', {
  liveQueryInnerQuery: [102, 400, 'LiveQuery does not support inner queries ($inQuery, $notInQuery, $select, $dontSelect): subscribe to the inner class separately.'],
  liveQueryTooManySubscriptions: [154, 400, 'Too many LiveQuery subscriptions for this subscription id.'],
});
