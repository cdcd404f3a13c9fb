// A local S3-compatible server for tests (npm `s3rver`): a TEST DOUBLE of S3, not S3. It speaks
// the S3 REST API (put, get with Range, head, delete, presigned URLs) but does not enforce every
// rule of the real service (e.g. it accepts a presigned PUT whose signed Content-Length or
// Content-Type differs); docs/files.md lists what was verified only against it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { S3Options } from '../../src/modules/files/files-options.ts';

/** A running S3 double with one bucket. */
export interface S3Double {
  options: S3Options;
  stop(): Promise<void>;
}

/** Starts s3rver on a random port of 127.0.0.1 with a fresh bucket. */
export async function startS3Double(): Promise<S3Double> {
  const dir = await mkdtemp(join(tmpdir(), 'larder-s3rver-'));
  const bucket = 'larder-test';
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  const addr = await server.run();
  return {
    options: {
      endpoint: `http://127.0.0.1:${addr.port}`,
      region: 'us-east-1',
      bucket,
      forcePathStyle: true,
      // s3rver's fixed test credentials.
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    },
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
