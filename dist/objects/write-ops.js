/**
 * Body keys that SDKs send as request flags, not data. They are returned to the caller (hooks,
 * batch/save) and never stored.
 */
export const WRITE_FLAG_KEYS = ['__ignore_hooks', '__internalId', '__children', '__before', '__after'];
/** The top-level field an op writes. */
export function topField(op) {
    return op.path[0];
}
//# sourceMappingURL=write-ops.js.map