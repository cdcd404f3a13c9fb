import { ApiError } from '../../errors/api-error.ts';
import { fileClassAlias } from '../../files/file-class.ts';
import { checkClassName } from '../../model/names.ts';
import { formatClassSchema, formatSchemas } from '../../schema/schema-format.ts';
import { ok, type ApiRequest, type Route } from '../route.ts';

function requireMaster(req: ApiRequest): void {
  if (!req.ctx.master) throw new ApiError('masterKeyRequired', 'Schemas can only be read with the master key.');
}

/** GET /1.1/schemas and /1.1/schemas/<className> (master key only). */
export const schemaRoutes: Route[] = [
  {
    method: 'GET',
    path: '/1.1/schemas',
    handler: async (req) => {
      requireMaster(req);
      return ok(formatSchemas(await req.ctx.app.classes.list()));
    },
  },
  {
    method: 'GET',
    path: '/1.1/schemas/:className',
    handler: async (req) => {
      requireMaster(req);
      const name = fileClassAlias(checkClassName(req.params.className));
      // Fresh from the catalogue, not the per-process cache: another process may have added fields.
      req.ctx.app.classes.forget(name);
      const schema = await req.ctx.app.classes.find(name);
      if (!schema) throw new ApiError('classNotFound', `Class ${name} does not exist.`);
      return ok(formatClassSchema(schema));
    },
  },
];
