/**
 * The CQL module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors } from '../../module-api/errors.ts';

/** Builds a CQL error: `throw cqlErrors('cqlSyntax')`. */
export const cqlErrors = defineErrors('cql', {
  cqlSyntax: [300, 400, 'CQL syntax error.'],
});
