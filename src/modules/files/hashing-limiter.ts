import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { filesError } from './files-errors.ts';

/**
 * A pass-through that counts and md5-hashes the bytes going by and fails with `fileTooLarge`
 * the moment more than `maxBytes` went through, so an oversized body is cut off early instead of
 * being stored first and measured later.
 */
export class HashingLimiter extends Transform {
  private readonly hash: Hash = createHash('md5');
  private count = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.maxBytes) {
      done(filesError('fileTooLarge', `The file is larger than ${this.maxBytes} bytes, the most this server accepts (LARDER_FILE_MAX_BYTES).`));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  /** Bytes seen so far. */
  get size(): number {
    return this.count;
  }

  /** The md5 (hex) of everything seen; call once, after the stream ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}
