/**
 * Issuing and rotating the one session token a user has (LeanCloud keeps one per user; login
 * returns it, refreshSessionToken and updatePassword replace it). Rotation writes the new token
 * over the old in the row, so the old token stops resolving at once; the callers then drop the
 * cached principals of the user in every process (invalidateSessions).
 */
import { ApiError } from '../errors/api-error.js';
import { sql } from '../sql/fragment.js';
import { newSessionToken } from './session-token.js';
import { storedToken, USER_TABLE } from './user-store.js';
/** The user's token; users without one (imported rows) get one now, atomically. */
export async function sessionTokenOf(q, row) {
    const have = storedToken(row);
    if (have)
        return have;
    const rows = await q.query(sql `UPDATE ${USER_TABLE}
    SET data = data || jsonb_build_object('sessionToken', COALESCE(data->>'sessionToken', ${newSessionToken()}::text))
    WHERE "objectId" = ${row.objectId} RETURNING data->>'sessionToken' AS token`);
    // Deleted meanwhile: as if it had never been found.
    if (!rows[0])
        throw new ApiError('userNotFound');
    row.data.sessionToken = rows[0].token;
    return rows[0].token;
}
//# sourceMappingURL=session-issue.js.map