import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { createObject, type Created } from '../objects/create-object.ts';
import { FILE_CLASS, uploadUnsupported } from './file-class.ts';
import { guessMimeType } from './mime-type.ts';
import { isPlainObject } from '../model/plain-object.ts';

/** Longest file name accepted. */
export const MAX_FILE_NAME_LENGTH = 1024;
/** Longest external URL accepted. */
export const MAX_FILE_URL_LENGTH = 4096;

/** Body keys of an external-file save (JS SDK: name, url, mime_type, metaData, ACL). */
const ALLOWED = new Set(['name', 'url', 'mime_type', 'metaData', 'ACL', '__type']);

function checkUrl(url: unknown): string {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_FILE_URL_LENGTH) {
    throw new ApiError('badRequest', `A file needs a "url" string of at most ${MAX_FILE_URL_LENGTH} characters (only files saved by URL are supported).`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError('badRequest', 'The file "url" is not a valid absolute URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ApiError('badRequest', 'The file "url" must be an http or https URL.');
  return url;
}

/**
 * Creates an external file record in _File, as `AV.File.withURL(name, url).save()` sends it:
 * POST /1.1/files {name, url, metaData: {owner, size, __source: "external", ...}, ACL?,
 * mime_type?}. The record is an object of _File with the usual ACL (public when none is given);
 * a missing mime_type is guessed from the name or URL. Content uploads are not supported.
 */
export async function createExternalFile(ctx: RequestContext, body: unknown): Promise<Created> {
  if (!isPlainObject(body)) throw new ApiError('invalidJson', 'A file body must be a JSON object {"name", "url", ...}.');
  if ('base64' in body || 'key' in body) throw uploadUnsupported();
  const unknown = Object.keys(body).filter((k) => !ALLOWED.has(k));
  if (unknown.length) throw new ApiError('invalidKeyName', `Unknown file field ${JSON.stringify(unknown[0].slice(0, 100))}; a file has name, url, mime_type, metaData and ACL.`);
  const { name, mime_type: mimeType, metaData, ACL } = body;
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_FILE_NAME_LENGTH) {
    throw new ApiError('badRequest', `A file needs a "name" string of 1 to ${MAX_FILE_NAME_LENGTH} characters.`);
  }
  const url = checkUrl(body.url);
  if (mimeType !== undefined && mimeType !== null && (typeof mimeType !== 'string' || mimeType.length > 255)) {
    throw new ApiError('badRequest', 'The file "mime_type" must be a string.');
  }
  if (metaData !== undefined && metaData !== null && !isPlainObject(metaData)) throw new ApiError('badRequest', 'The file "metaData" must be an object.');
  const principal = await ctx.principal();
  // The owner is who is calling, as for uploads (modules/files/new-file-record.ts); only the
  // master key may name another: otherwise any client could file records under another user.
  const declared = metaData ?? {};
  const owner = ctx.master && typeof declared.owner === 'string' ? declared.owner : principal.userId ?? 'unknown';
  const meta: Record<string, unknown> = { size: 0, ...declared, owner, __source: 'external' };
  const record: Record<string, unknown> = { name, url, mime_type: mimeType || guessMimeType(name, url), metaData: meta };
  if (ACL !== undefined) record.ACL = ACL;
  return createObject(ctx, FILE_CLASS, record);
}
