/**
 * The CQL module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors, type ErrorSpec } from '../../module-api/errors.ts';

function e(code: number, status: number, message: string): ErrorSpec {
  return { code, status, message };
}

/** Builds a CQL error: `throw cqlErrors('cqlSyntax')`. */
export const cqlErrors = defineErrors('cql', {
  cqlSyntax: e(300, 400, 'CQL syntax error.'),
});
