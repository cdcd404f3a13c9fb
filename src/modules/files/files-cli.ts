/**
 * What the command line needs of the file service (`larder files pull`, `larder serve`), handed
 * to the CLI by the module registry (src/modules/index.ts): the core never imports a module file.
 */
import type { BlobStore } from './blob-store.ts';
import type { FilesOptions } from './files-options.ts';
import { LocalDiskStore } from './local-disk-store.ts';

export { filesOptionsFromConfig, type FilesOptions } from './files-options.ts';
export { pullFiles, type PullProgress, type PullSummary } from './pull/pull-files.ts';
export type { BlobStore } from './blob-store.ts';

/** The configured byte store: S3 (loaded only when used) or a local directory. */
export async function openFileStore(opts: FilesOptions): Promise<BlobStore> {
  if (opts.backend === 's3') {
    if (!opts.s3) throw new Error('the s3 backend needs S3 options');
    const { S3Store } = await import('./s3-store.ts');
    return S3Store.open(opts.s3);
  }
  return LocalDiskStore.open(opts.dir);
}
