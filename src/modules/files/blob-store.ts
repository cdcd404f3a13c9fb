import type { Readable } from 'node:stream';

/** What a store knows after writing bytes: their real size and md5 (hex). */
export interface StoredBlob {
  readonly size: number;
  readonly md5: string;
}

/** A byte range, inclusive at both ends (HTTP Range semantics). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A presigned direct upload: the client PUTs the bytes to `url` itself. */
export interface DirectUpload {
  readonly url: string;
}

/**
 * Where file bytes live. A blob is named by a `location` the server made (never by anything a
 * client sent as a path): a random id on local disk, the object key in a bucket. Every write is
 * all-or-nothing: a failed or oversized write leaves nothing readable behind.
 */
export interface BlobStore {
  /** local (served by Larder from disk) or s3 (a bucket). */
  readonly kind: 'local' | 's3';
  /** The bucket name answered in fileTokens (`bucket`); the directory's name on local disk. */
  readonly bucket: string;
  /**
   * Streams `body` into the blob at `location`, hashing as it goes. Rejects with
   * filesError('fileTooLarge') as soon as more than `maxBytes` arrived (nothing is kept).
   * `exclusive`: never replace a blob already at `location`; reject with an error whose `code`
   * is EEXIST instead (local disk: two PUTs of one token, see receive-upload.ts; a bucket is
   * written only by presigned PUTs, which never reach `write`). `declaredBytes`: the length the
   * client declared (Content-Length), when it did: a hint for how to hash, never trusted as the size.
   */
  write(location: string, body: Readable, opts: { maxBytes: number; contentType: string; exclusive?: boolean; declaredBytes?: number }): Promise<StoredBlob>;
  /** The bytes of a blob (a range of them when given); undefined when there is no such blob. */
  read(location: string, range?: ByteRange): Promise<Readable | undefined>;
  /**
   * All `size` bytes of a blob in one buffer (one read), undefined when there is no such blob;
   * fewer bytes when the blob is shorter. Only stores for which one read is cheap (local disk)
   * have it; serving uses it for small files (whole-file-reads.ts).
   */
  readWhole?(location: string, size: number): Promise<Buffer | undefined>;
  /** Size and md5 of a stored blob, undefined when absent (S3: after a direct upload). */
  stat(location: string): Promise<StoredBlob | undefined>;
  /** Removes a blob; removing a missing blob is not an error. */
  remove(location: string): Promise<void>;
  /**
   * A URL the client PUTs the bytes to directly (S3 presigned PUT, signed for exactly `size`
   * bytes of `contentType`), or undefined when uploads go through Larder (local disk).
   */
  directUpload(location: string, opts: { contentType: string; size: number; ttlSeconds: number }): Promise<DirectUpload | undefined>;
  /** Releases clients and timers. */
  close(): Promise<void>;
}
