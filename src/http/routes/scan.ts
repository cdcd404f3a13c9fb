import { ApiError } from '../../errors/api-error.ts';
import { parseScanLimit, scanObjects } from '../../scan/scan-objects.ts';
import { checkClassName } from '../../model/names.ts';
import { fileClassAlias } from '../../files/file-class.ts';
import { keysParam } from '../key-params.ts';
import { flag, json, text } from '../query-params.ts';
import { ok, type ApiRequest, type Route } from '../route.ts';

/** Parameters a scan does not take: it pages by cursor, in scan_key order, without includes. */
const REFUSED: Readonly<Record<string, string>> = {
  include: 'include is not allowed in a scan; fetch the pointed objects separately',
  order: 'a scan is ordered by scan_key (default objectId; "-key" descends), not by order',
  skip: 'a scan pages with the returned cursor, not with skip',
};

async function scan(req: ApiRequest) {
  // Checked before anything else so that a non-master caller learns nothing about the class.
  if (!req.ctx.master) throw new ApiError('masterKeyRequired', 'Scan requires the master key.');
  for (const [name, why] of Object.entries(REFUSED)) {
    const v = text(req.query, name);
    if (v !== undefined && v.trim() !== '' && !(name === 'skip' && v.trim() === '0')) throw new ApiError('invalidQuery', `Invalid scan: ${why}.`);
  }
  const className = fileClassAlias(checkClassName(req.params.className));
  return ok(
    await scanObjects(req.ctx, className, {
      where: json(req.query, 'where'),
      limit: parseScanLimit(req.query.limit),
      scanKey: text(req.query, 'scan_key'),
      cursor: text(req.query, 'cursor') || undefined,
      keys: keysParam(req.query),
      returnACL: flag(req.query, 'returnACL'),
    }),
  );
}

/** GET /1.1/scan/classes/<className> (master key only). */
export const scanRoutes: Route[] = [{ method: 'GET', path: '/1.1/scan/classes/:className', handler: scan }];
