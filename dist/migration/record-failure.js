/**
 * Tells a failure of one record (bad data, a unique value taken by another row) from a failure
 * of the infrastructure (database down, disk full). Record failures are reported and the import
 * goes on; anything else stops it, because every later write would fail the same way.
 */
import { isApiError } from '../errors/api-error.js';
import { sqlState } from '../storage/driver-errors.js';
/** SQLSTATE classes that are about the data written: 22 data exception, 23 integrity violation. */
const DATA_CLASSES = new Set(['22', '23']);
/** The reason to report when `err` is a record failure; undefined when it is not one. */
export function errorReason(err) {
    if (isApiError(err))
        return `${err.message} (code ${err.code})`;
    const state = sqlState(err);
    if (state !== undefined && DATA_CLASSES.has(state.slice(0, 2))) {
        return err instanceof Error ? err.message : `database error ${state}`;
    }
    return undefined;
}
//# sourceMappingURL=record-failure.js.map