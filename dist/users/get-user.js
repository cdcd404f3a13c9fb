import { readersOf } from '../app-context.js';
import { checkClassPermission, classPermits } from '../auth/class-permissions.js';
import { ApiError } from '../errors/api-error.js';
import { expandFiles } from '../objects/expand-files.js';
import { resolveIncludes } from '../objects/include.js';
import { OBJECT_COLUMNS } from '../objects/object-row.js';
import { projectKeys } from '../objects/project-keys.js';
import { aclClause } from '../query/sql/compile-where.js';
import { sql } from '../sql/fragment.js';
import { plausibleSessionToken } from './session-token.js';
import { userResponse } from './user-response.js';
import { findUserBySession, USER_TABLE } from './user-store.js';
/** One user by id, as the caller may see it; 211 when missing or unreadable. */
export async function getUser(ctx, objectId, opts) {
    const { db, classes } = ctx.app;
    await checkClassPermission(ctx, '_User', 'get');
    const readers = await readersOf(ctx);
    const rows = await db.query(sql `SELECT ${OBJECT_COLUMNS} FROM ${USER_TABLE} WHERE "objectId" = ${objectId} AND ${aclClause(readers)}`);
    const row = rows[0];
    if (!row)
        throw new ApiError('userNotFound');
    const self = ctx.master || (await ctx.principal()).userId === objectId;
    const obj = userResponse(row, {
        withAuthData: self,
        withAcl: opts.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries),
    });
    if (opts.include.length)
        await resolveIncludes({ db, classes, readers, permits: (c) => classPermits(ctx, c, 'get') }, [obj], opts.include);
    await expandFiles(db, [obj]);
    return projectKeys(obj, opts.keys);
}
/**
 * The user of the request's session token (GET /1.1/users/me), with that token. No token, or one
 * that matches no user (stale after a rotation, or made up), is 400/211 as on the real server.
 */
export async function currentUser(ctx) {
    const token = ctx.sessionToken;
    if (!plausibleSessionToken(token))
        throw new ApiError('userNotFound');
    const row = await findUserBySession(ctx.app.db, token);
    if (!row)
        throw new ApiError('userNotFound');
    return userResponse(row, { sessionToken: token });
}
//# sourceMappingURL=get-user.js.map