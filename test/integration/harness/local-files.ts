/**
 * A test server whose files module keeps its files on local disk in a fresh temporary directory
 * (the files tests look at that directory: blobs, temporary parts, thumbnails), removed again
 * when the server stops.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILE_DEFAULTS, type FilesOptions } from '../../../src/modules/files/files-options.ts';
import { startHarness, type Harness, type HarnessOptions } from './engines.ts';

/** A fresh temporary directory for a local files store; `prefix` names the test in /tmp. */
export function makeFilesDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** The files module's options for a local store in `dir`: the defaults, then `overrides`. */
export function localFilesOptions(dir: string, overrides: Partial<FilesOptions> = {}): FilesOptions {
  return { backend: 'local', dir, ...FILE_DEFAULTS, ...overrides };
}

/** Options of startLocalFilesHarness. */
export interface LocalFilesHarnessOptions extends Omit<HarnessOptions, 'modules'> {
  /** Prefix of the temporary directory's name (e.g. `larder-files-upload-`). */
  prefix: string;
  /** Files settings over the defaults (maxBytes, thumbnail limits, ...). */
  files?: Partial<FilesOptions>;
}

/** A running test app with local files, listening; `stop()` also removes its files directory. */
export interface LocalFilesHarness extends Harness {
  /** The files directory. */
  dir: string;
  /** The listening server's base URL. */
  base: string;
  stop(): Promise<void>;
}

/** Starts a test app on `engine` with local files in a fresh directory and listens. */
export async function startLocalFilesHarness(engine: 'pglite' | 'postgres', opts: LocalFilesHarnessOptions): Promise<LocalFilesHarness> {
  const { prefix, files, ...harness } = opts;
  const dir = await makeFilesDir(prefix);
  let h: Harness & { stop(): Promise<void> };
  try {
    h = await startHarness(engine, { ...harness, modules: { files: localFilesOptions(dir, files) } });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const stopHarness = h.stop.bind(h);
  const base = await h.listen();
  return Object.assign(h, {
    dir,
    base,
    async stop() {
      try {
        await stopHarness();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  });
}
