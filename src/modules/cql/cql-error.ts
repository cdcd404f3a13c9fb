import { cqlErrors } from './cql-errors.ts';

/**
 * Throws error 300 for a CQL statement that cannot be understood. The position is 1-based (the
 * first character of the statement is position 1), as a person counts when reading the query.
 */
export function cqlError(pos: number, what: string): never {
  throw cqlErrors('cqlSyntax', `CQL syntax error at position ${pos + 1}: ${what}.`);
}
