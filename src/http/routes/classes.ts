import { ApiError } from '../../errors/api-error.ts';
import { createObject, withFiles, assertWritableClass } from '../../objects/create-object.ts';
import { deleteObjects } from '../../objects/delete-object.ts';
import { findObjects, findObjectsJson } from '../../objects/find-objects.ts';
import { getObject, getObjectJson, missingBuiltIn } from '../../objects/get-object.ts';
import { isValidObjectId } from '../../model/object-id.ts';
import { updateObject } from '../../objects/update-object.ts';
import { findRedirected } from '../../objects/redirect-class.ts';
import { checkClassName } from '../../model/names.ts';
import { parseFindQuery } from '../find-params.ts';
import { includeParam, keysParam } from '../key-params.ts';
import { flag, json, text } from '../query-params.ts';
import { ok, type ApiRequest, type Route } from '../route.ts';

function objectIdOf(req: ApiRequest): string {
  const id = req.params.objectId;
  if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid object id '${id.slice(0, 80)}'.`);
  return id;
}

/** fetchWhenSave=true (Python/Java/ObjC SDKs) and new=true (JS SDK) both ask for the object back. */
function wantsObject(req: ApiRequest): boolean {
  return flag(req.query, 'fetchWhenSave') || flag(req.query, 'new');
}

/** POST /1.1/classes/<className>: 201 + Location + {objectId, createdAt} (or the object). */
export async function createRoute(req: ApiRequest, className: string, location: string): Promise<ReturnType<typeof ok>> {
  assertWritableClass(className);
  const created = await createObject(req.ctx, className, req.body);
  const body = wantsObject(req) ? await withFiles(req.ctx, className, created.object) : { objectId: created.objectId, createdAt: created.createdAt };
  return ok(body, 201, { Location: `${req.ctx.baseUrl}${location}/${created.objectId}` });
}

/** PUT of one object: {updatedAt, objectId}, or with fetchWhenSave the changed fields too. */
export async function updateRoute(req: ApiRequest, className: string): Promise<ReturnType<typeof ok>> {
  assertWritableClass(className);
  const objectId = objectIdOf(req);
  const res = await updateObject(req.ctx, className, objectId, req.body, { where: json(req.query, 'where') });
  const base = { updatedAt: res.updatedAt, objectId };
  return ok(wantsObject(req) ? await withFiles(req.ctx, className, { ...res.changed, ...base }) : base);
}

/** DELETE of one object or of comma-joined ids. */
export async function deleteRoute(req: ApiRequest, className: string): Promise<ReturnType<typeof ok>> {
  assertWritableClass(className);
  const ids = req.params.objectId.split(',');
  for (const id of ids) if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid object id '${id.slice(0, 80)}'.`);
  await deleteObjects(req.ctx, className, ids, json(req.query, 'where'), req.body);
  return ok({});
}

/** GET of one object: the object, 200 {} when missing (400/211 in built-in classes). */
export async function getRoute(req: ApiRequest, className: string): Promise<ReturnType<typeof ok>> {
  const objectId = objectIdOf(req);
  const opts = { keys: keysParam(req.query), include: includeParam(req.query), returnACL: flag(req.query, 'returnACL') };
  // Over HTTP the answer may be prebuilt JSON text (objects/raw-json.ts); batch items get values.
  const obj = req.inBatch ? await getObject(req.ctx, className, objectId, opts) : await getObjectJson(req.ctx, className, objectId, opts);
  if (obj) return ok(obj);
  const builtIn = missingBuiltIn(className);
  if (builtIn) throw builtIn;
  // In a batch the original service answers a missing object with success: null.
  return ok(req.inBatch ? null : {});
}

/** GET of a class: {results} (+count), or redirected to a relation's target class. */
export async function findRoute(req: ApiRequest, className: string): Promise<ReturnType<typeof ok>> {
  const query = parseFindQuery(req.query);
  const redirectKey = text(req.query, 'redirectClassNameForKey');
  if (redirectKey) return ok(await findRedirected(req.ctx, className, redirectKey, query));
  return ok(req.inBatch ? await findObjects(req.ctx, className, query) : await findObjectsJson(req.ctx, className, query));
}

const cls = (req: ApiRequest) => checkClassName(req.params.className);

/** Routes of /1.1/classes. */
export const classRoutes: Route[] = [
  { method: 'POST', path: '/1.1/classes/:className', handler: (req) => createRoute(req, cls(req), `/1.1/classes/${cls(req)}`) },
  { method: 'GET', path: '/1.1/classes/:className', handler: (req) => findRoute(req, cls(req)) },
  { method: 'GET', path: '/1.1/classes/:className/:objectId', handler: (req) => getRoute(req, cls(req)) },
  { method: 'PUT', path: '/1.1/classes/:className/:objectId', handler: (req) => updateRoute(req, cls(req)) },
  { method: 'DELETE', path: '/1.1/classes/:className/:objectId', handler: (req) => deleteRoute(req, cls(req)) },
];
