import type { LarderModule } from '../module-api/larder-module.ts';
import { cqlModule } from './cql/cql-module.ts';
import { friendsModule } from './friends/friends-module.ts';
import { leaderboardsModule } from './leaderboards/leaderboards-module.ts';
import { filesModule } from './files/files-module.ts';
import { filesOptionsFromConfig, type FilesOptions } from './files/files-options.ts';
import type { Config } from '../config.ts';
import { liveQueryModule, type LiveQueryModuleOptions } from './livequery/livequery-module.ts';
import { statusesModule } from './statuses/statuses-module.ts';

/** Settings of the modules that take some (none: defaults for tests and embedded uses). */
export interface ModuleOptions {
  files?: FilesOptions;
  liveQuery?: LiveQueryModuleOptions;
}

/**
 * The optional services this build of Larder serves (composition root; the core never imports
 * this, only app wiring and the CLI do). Importing this file also declares every module's
 * settings and errors in the core catalogues (src/module-api/settings.ts, errors.ts).
 */
export function defaultModules(opts: ModuleOptions = {}): LarderModule[] {
  return [friendsModule(), cqlModule(), leaderboardsModule(), statusesModule(), filesModule(opts.files), liveQueryModule(opts.liveQuery)];
}

/** The modules as `larder serve` configures them from its settings. */
export function modulesFromConfig(config: Config): LarderModule[] {
  return defaultModules({
    files: filesOptionsFromConfig(config),
    liveQuery: { publicUrl: config.publicUrl, timing: { windowMs: config.liveQueryWindowMs, leaseMs: config.liveQueryLeaseMs } },
  });
}

// What the command line needs of the file service (`larder files pull`).
export { filesOptionsFromConfig, openFileStore, pullFiles, type BlobStore, type PullProgress } from './files/files-cli.ts';
