/**
 * Reading users: GET /1.1/users/<id> (and /1.1/classes/_User/<id>) and GET /1.1/users/me.
 * A user by id is filtered by its ACL like any object and never carries the password, the salt
 * or the session token; `authData` and the client-invisible fields (`email`, `mobilePhoneNumber`
 * by default: plan/field-policy.ts) are shown to the user itself and to the master key only.
 * An unknown (or unreadable) id is 400/211, as for every built-in class.
 */
import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import type { WireObject } from '../objects/encode.ts';
import { expandFiles } from '../objects/expand-files.ts';
import { resolveIncludes } from '../objects/include.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { projectKeys, type KeySelection } from '../objects/project-keys.ts';
import { accessOf, droppedFrom, fieldView, selectById } from '../plan/index.ts';
import { plausibleSessionToken } from './session-token.ts';
import { userResponse } from './user-response.ts';
import { findUserBySession } from './user-store.ts';

/** Options of a get by id (the query parameters of the generic get). */
export interface GetUserOptions {
  keys?: KeySelection;
  include: string[][];
  returnACL: boolean;
}

/** One user by id, as the caller may see it; 211 when missing or unreadable. */
export async function getUser(ctx: RequestContext, objectId: string, opts: GetUserOptions): Promise<WireObject> {
  const { db, classes } = ctx.app;
  const access = await accessOf(ctx);
  await access.require('_User', 'get');
  const rows = await db.query<ObjectRow>(selectById(access, '_User', OBJECT_COLUMNS, objectId));
  const row = rows[0];
  if (!row) throw new ApiError('userNotFound');
  const self = access.master || access.userId === objectId;
  const obj = userResponse(row, {
    withAuthData: self,
    withAcl: opts.returnACL && (ctx.master || ctx.app.settings.includeACLInQueries),
    drop: droppedFrom(fieldView(access, '_User'), objectId),
  });
  if (opts.include.length) await resolveIncludes({ db, classes, access }, [obj], opts.include);
  await expandFiles(db, [obj]);
  return projectKeys(obj, opts.keys);
}

/**
 * The user of the request's session token (GET /1.1/users/me), with that token. No token, or one
 * that matches no user (stale after a rotation, or made up), is 400/211 as on the real server.
 */
export async function currentUser(ctx: RequestContext): Promise<WireObject> {
  const token = ctx.sessionToken;
  if (!plausibleSessionToken(token)) throw new ApiError('userNotFound');
  const row = await findUserBySession(ctx.app.db, token);
  if (!row) throw new ApiError('userNotFound');
  return userResponse(row, { sessionToken: token });
}
