import { ApiError } from '../errors/api-error.js';
import { ident, sql } from '../sql/fragment.js';
import { writeAclClause } from './write-acl.js';
/**
 * After a conditional write touched no row, finds out why, so the client gets the right error:
 * no such object (code 1), no write permission (403), or the `where` did not match (305).
 */
export async function whyNoWrite(db, className, objectId, writers) {
    const rows = await db.query(sql `SELECT ${writeAclClause(writers)} AS writable FROM ${ident(className)} WHERE "objectId" = ${objectId}`);
    if (!rows[0])
        return new ApiError('objectNotFoundForUpdate', `Could not find object by id '${objectId}' for class '${className}'.`);
    if (!rows[0].writable)
        return new ApiError('forbidden', `Forbidden writing by object's ACL, the object id is ${objectId}.`);
    return new ApiError('noEffect');
}
//# sourceMappingURL=write-outcome.js.map