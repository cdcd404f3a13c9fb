import type { RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { FILE_CLASS, guessMimeType } from '../../module-api/data.ts';
import { insertPrepared, prepareCreate } from '../../module-api/writes.ts';
import { keyTaken, pendingInsert } from './file-records.ts';
import { isValidKey, newKey, tokenHash } from './file-key.ts';
import { fileUrl, newBlobLocation, type FilesService } from './files-service.ts';

/** Longest file name accepted. */
export const MAX_NAME_LENGTH = 1024;
/** A MIME type as a header may carry it: type/subtype and optional parameters, no controls. */
const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;\s*[A-Za-z0-9_.-]+=[A-Za-z0-9_."-]+){0,4}$/;

/** What a new file is made from (already parsed from the request). */
export interface NewFileInput {
  name: string;
  mimeType?: string;
  metaData?: Record<string, unknown>;
  acl?: unknown;
  key?: string;
  prefix?: string;
  keepFileName?: boolean;
  /** Token of a fileTokens upload; none for a direct upload. */
  token?: string;
  state: 'pending' | 'uploading';
}

/** A made file: its record and where its bytes go. */
export interface NewFile {
  objectId: string;
  createdAt: string;
  key: string;
  blob: string;
  url: string;
  mimeType: string;
  name: string;
}

/** A declared MIME type if it is well-formed, else one guessed from the name. */
export function mimeTypeFor(name: string, declared: unknown): string {
  if (typeof declared === 'string' && MIME.test(declared.trim())) return declared.trim().toLowerCase();
  return guessMimeType(name);
}

/** Checks a file name: 1 to 1024 characters, no control characters. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new ApiError('badRequest', `A file needs a "name" string of 1 to ${MAX_NAME_LENGTH} characters without control characters.`);
  }
  return name;
}

async function chooseKey(ctx: RequestContext, svc: FilesService, input: NewFileInput): Promise<string> {
  if (input.key !== undefined) {
    // Like LeanCloud: choosing the key is the master key's; a key is never reused (the URL of
    // a file must keep meaning that file).
    if (!ctx.master) throw new ApiError('masterKeyRequired', 'Choosing a file key requires the master key.');
    if (!isValidKey(input.key)) throw new ApiError('badRequest', 'A file key is /-separated parts of letters, digits, ".", "_" and "-" (no "." or ".." parts), at most 1024 characters.');
    if (await keyTaken(svc.app.db, input.key)) throw new ApiError('duplicateValue', 'A file with this key already exists.');
    return input.key;
  }
  if (input.prefix !== undefined && !isValidKey(input.prefix)) {
    throw new ApiError('badRequest', 'A file key prefix is /-separated parts of letters, digits, ".", "_" and "-".');
  }
  return newKey({ name: input.name, prefix: input.prefix, keepFileName: input.keepFileName });
}

/**
 * Creates a file's `_File` record (class permissions and ACL as for any create) and its
 * bookkeeping row, in one statement (one round trip): both exist or neither, so no record is
 * ever untracked.
 */
export async function createFileRecord(ctx: RequestContext, svc: FilesService, input: NewFileInput): Promise<NewFile> {
  const name = checkName(input.name);
  const mimeType = mimeTypeFor(name, input.mimeType);
  const key = await chooseKey(ctx, svc, input);
  const url = fileUrl(svc, ctx.baseUrl, key);
  const principal = await ctx.principal();
  const declared = input.metaData ?? {};
  // The owner is who is calling (the master key may name one); size and _checksum are the
  // server's to fill in once the bytes are stored.
  const owner = ctx.master && typeof declared.owner === 'string' ? declared.owner : principal.userId ?? 'unknown';
  const { _checksum: _ignored, ...rest } = declared;
  void _ignored;
  const size = typeof declared.size === 'number' && Number.isFinite(declared.size) && declared.size >= 0 ? declared.size : 0;
  const record: Record<string, unknown> = { name, url, key, bucket: svc.store.bucket, mime_type: mimeType, provider: svc.store.kind === 's3' ? 's3' : 'larder', metaData: { ...rest, owner, size } };
  if (input.acl !== undefined) record.ACL = input.acl;
  const prepared = await prepareCreate(ctx, FILE_CLASS, record);
  const blob = newBlobLocation(svc, key);
  const pending = pendingInsert({
    objectId: prepared.objectId, key, blob, tokenHash: input.token ? tokenHash(input.token) : null, mimeType, name, ttlSeconds: svc.opts.tokenTtlSeconds,
  }, input.state);
  try {
    await insertPrepared(ctx, FILE_CLASS, [prepared], pending);
  } catch (err) {
    // Two uploads choosing one key at once: the unique index decides (the object id is new).
    if (err instanceof ApiError && err.errorName === 'duplicateValue') throw new ApiError('duplicateValue', 'A file with this key already exists.');
    throw err;
  }
  return { objectId: prepared.objectId, createdAt: prepared.now, key, blob, url, mimeType, name };
}
