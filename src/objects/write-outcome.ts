import { ApiError } from '../errors/api-error.ts';
import { writableRow, type Access } from '../plan/index.ts';
import type { Queryable } from '../storage/database.ts';

/**
 * After a conditional write touched no row, finds out why, so the client gets the right error:
 * no such object (code 1), no write permission (403), or the `where` did not match (305).
 */
export async function whyNoWrite(db: Queryable, className: string, objectId: string, access: Access): Promise<ApiError> {
  const rows = await db.query<{ writable: boolean }>(writableRow(access, className, objectId));
  if (!rows[0]) return new ApiError('objectNotFoundForUpdate', `Could not find object by id '${objectId}' for class '${className}'.`);
  if (!rows[0].writable) return new ApiError('forbidden', `Forbidden writing by object's ACL, the object id is ${objectId}.`);
  return new ApiError('noEffect');
}
