import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ApiError } from '../../module-api/errors.ts';
import type { BlobStore, ByteRange, DirectUpload, StoredBlob } from './blob-store.ts';
import type { S3Options } from './files-options.ts';
import { HashingLimiter } from './hashing-limiter.ts';
import { filesError } from './files-errors.ts';

function isMissing(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404;
}

function storageFailed(err: unknown): ApiError {
  const e = filesError('fileStorageFailed');
  e.cause = err;
  return e;
}

/**
 * File bytes in an S3-compatible bucket (@aws-sdk/client-s3). The object key is the file's key.
 * Clients of fileTokens upload straight to the bucket with a presigned PUT (as on LeanCloud);
 * bytes that pass through Larder (POST /1.1/files/<name>, `larder files pull`) are spooled to a
 * temporary file first, so that the PUT has a known length and memory stays flat.
 */
export class S3Store implements BlobStore {
  readonly kind = 's3' as const;
  readonly bucket: string;

  private constructor(
    private readonly client: S3Client,
    private readonly spool: string,
    bucket: string,
  ) {
    this.bucket = bucket;
  }

  /** Connects (lazily: the first request opens the connection). */
  static async open(opts: S3Options): Promise<S3Store> {
    const client = new S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle,
      credentials: opts.credentials,
      // MD5/CRC checksums are sent explicitly where wanted; S3-compatible servers differ in
      // support of the newer default checksum headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return new S3Store(client, await mkdtemp(join(tmpdir(), 'larder-s3-spool-')), opts.bucket);
  }

  async write(location: string, body: Readable, opts: { maxBytes: number; contentType: string }): Promise<StoredBlob> {
    const temp = join(this.spool, randomBytes(12).toString('hex'));
    const limiter = new HashingLimiter(opts.maxBytes);
    try {
      await pipeline(body, limiter, createWriteStream(temp, { flags: 'wx' }));
      const md5 = limiter.digest();
      try {
        await this.client.send(new PutObjectCommand({
          Bucket: this.bucket, Key: location, Body: createReadStream(temp), ContentLength: limiter.size,
          ContentType: opts.contentType, ContentMD5: Buffer.from(md5, 'hex').toString('base64'), CacheControl: 'public, max-age=31536000',
        }));
      } catch (err) {
        throw storageFailed(err);
      }
      return { size: limiter.size, md5 };
    } finally {
      await rm(temp, { force: true });
    }
  }

  async read(location: string, range?: ByteRange): Promise<Readable | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: location, Range: range ? `bytes=${range.start}-${range.end}` : undefined }));
      return out.Body as Readable | undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw storageFailed(err);
    }
  }

  async stat(location: string): Promise<StoredBlob | undefined> {
    let head;
    try {
      head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: location }));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw storageFailed(err);
    }
    const size = Number(head.ContentLength ?? 0);
    const etag = (head.ETag ?? '').replace(/"/g, '');
    // A single-part upload's ETag is its md5; otherwise the bytes are hashed.
    if (/^[0-9a-f]{32}$/.test(etag)) return { size, md5: etag };
    const body = await this.read(location);
    if (!body) return undefined;
    const hash = createHash('md5');
    for await (const chunk of body) hash.update(chunk as Buffer);
    return { size, md5: hash.digest('hex') };
  }

  async remove(location: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: location }));
    } catch (err) {
      if (!isMissing(err)) throw storageFailed(err);
    }
  }

  async directUpload(location: string, opts: { contentType: string; size: number; ttlSeconds: number }): Promise<DirectUpload> {
    // Content-Type and (when declared) Content-Length are signed: the bucket refuses other
    // bytes than the ones the token was issued for. The SDKs send exactly these headers.
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: location, ContentType: opts.contentType, ContentLength: opts.size > 0 ? opts.size : undefined });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: opts.ttlSeconds,
      signableHeaders: new Set(opts.size > 0 ? ['content-type', 'content-length'] : ['content-type']),
    });
    return { url };
  }

  async close(): Promise<void> {
    this.client.destroy();
    await rm(this.spool, { recursive: true, force: true });
  }
}
