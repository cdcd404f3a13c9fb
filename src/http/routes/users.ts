/**
 * The user endpoints (spec: Users; leancloud-behaviour §2.4), and `/1.1/classes/_User...`
 * registered explicitly so that generic class writes never reach `_User` (the route table
 * prefers the literal `_User` segment over `:className`).
 */
import { ApiError } from '../../errors/api-error.ts';
import { isValidObjectId } from '../../model/object-id.ts';
import { toIso } from '../../objects/timestamps.ts';
import { deleteUser } from '../../users/delete-user.ts';
import { currentUser, getUser } from '../../users/get-user.ts';
import { logIn } from '../../users/login.ts';
import { refreshSessionToken, updatePassword } from '../../users/rotate-token.ts';
import { signUp } from '../../users/sign-up.ts';
import { strictlyQueryUsers } from '../../users/strictly-query.ts';
import { updateUser } from '../../users/update-user.ts';
import { userResponse } from '../../users/user-response.ts';
import { includeParam, keysParam } from '../key-params.ts';
import { parseLimit } from '../../query/limits.ts';
import { flag, json, text } from '../query-params.ts';
import { ok, type ApiRequest, type ApiResponse, type Route } from '../route.ts';
import { findRoute } from './classes.ts';

function userIdOf(req: ApiRequest): string {
  const id = req.params.objectId;
  if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid object id '${id.slice(0, 80)}'.`);
  return id;
}

/** Sign-up or authData login: 201 + Location for a new user, 200 for an existing one. */
async function signUpRoute(req: ApiRequest, base: string): Promise<ApiResponse> {
  const res = await signUp(req.ctx, req.body, { failOnNotExist: flag(req.query, 'failOnNotExist') });
  const body = userResponse(res.row, { sessionToken: res.sessionToken });
  if (!res.created) return ok(body);
  return ok(body, 201, { Location: `${req.ctx.baseUrl}${base}/${res.row.objectId}` });
}

async function getRoute(req: ApiRequest): Promise<ApiResponse> {
  return ok(await getUser(req.ctx, userIdOf(req), {
    keys: keysParam(req.query),
    include: includeParam(req.query),
    returnACL: flag(req.query, 'returnACL'),
  }));
}

/** {updatedAt, objectId}; with fetchWhenSave / new=true also the changed fields. */
async function updateRoute(req: ApiRequest): Promise<ApiResponse> {
  const objectId = userIdOf(req);
  const res = await updateUser(req.ctx, objectId, req.body, { where: json(req.query, 'where') });
  const base = { updatedAt: res.updatedAt, objectId };
  return ok(flag(req.query, 'fetchWhenSave') || flag(req.query, 'new') ? { ...res.changed, ...base } : base);
}

async function deleteRoute(req: ApiRequest): Promise<ApiResponse> {
  await deleteUser(req.ctx, userIdOf(req), json(req.query, 'where'), req.body);
  return ok({});
}

/** GET /1.1/users/strictlyQuery (users/strictly-query.ts): skip, include and count are refused. */
async function strictlyQueryRoute(req: ApiRequest): Promise<ApiResponse> {
  for (const p of ['skip', 'include', 'count']) {
    const v = req.query[p];
    if (v !== undefined && v !== '' && v !== '0' && v !== 0 && v !== 'false' && v !== false) {
      throw new ApiError('invalidQuery', `strictlyQuery does not support '${p}'.`);
    }
  }
  return ok(await strictlyQueryUsers(req.ctx, {
    where: json(req.query, 'where'),
    order: text(req.query, 'order'),
    limit: parseLimit(req.query.limit),
    keys: keysParam(req.query),
  }));
}

/** The routes of /1.1/users, /1.1/login and /1.1/classes/_User. */
export const userRoutes: Route[] = [
  { method: 'POST', path: '/1.1/users', handler: (req) => signUpRoute(req, '/1.1/users') },
  { method: 'POST', path: '/1.1/classes/_User', handler: (req) => signUpRoute(req, '/1.1/classes/_User') },
  {
    method: 'POST',
    path: '/1.1/login',
    handler: async (req) => {
      const res = await logIn(req.ctx, req.body);
      return ok(userResponse(res.row, { sessionToken: res.sessionToken }));
    },
  },
  { method: 'GET', path: '/1.1/users/me', handler: async (req) => ok(await currentUser(req.ctx)) },
  { method: 'GET', path: '/1.1/users/strictlyQuery', handler: strictlyQueryRoute },
  { method: 'GET', path: '/1.1/users', handler: (req) => findRoute(req, '_User') },
  { method: 'GET', path: '/1.1/classes/_User', handler: (req) => findRoute(req, '_User') },
  { method: 'GET', path: '/1.1/users/:objectId', handler: getRoute },
  { method: 'GET', path: '/1.1/classes/_User/:objectId', handler: getRoute },
  { method: 'PUT', path: '/1.1/users/:objectId', handler: updateRoute },
  { method: 'PUT', path: '/1.1/classes/_User/:objectId', handler: updateRoute },
  { method: 'DELETE', path: '/1.1/users/:objectId', handler: deleteRoute },
  { method: 'DELETE', path: '/1.1/classes/_User/:objectId', handler: deleteRoute },
  {
    method: 'PUT',
    path: '/1.1/users/:objectId/refreshSessionToken',
    handler: async (req) => {
      const objectId = userIdOf(req);
      const res = await refreshSessionToken(req.ctx, objectId);
      // Only these three members, as the real server answered (recorded SDK traffic).
      return ok({ objectId, updatedAt: toIso(res.row.updatedAt), sessionToken: res.sessionToken });
    },
  },
  {
    method: 'PUT',
    path: '/1.1/users/:objectId/updatePassword',
    handler: async (req) => {
      const objectId = userIdOf(req);
      const res = await updatePassword(req.ctx, objectId, req.body);
      return ok({ updatedAt: toIso(res.row.updatedAt), objectId, sessionToken: res.sessionToken });
    },
  },
];
