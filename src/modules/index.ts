import type { LarderModule } from '../module-api/larder-module.ts';
import { cqlModule } from './cql/cql-module.ts';
import { friendsModule } from './friends/friends-module.ts';
import { leaderboardsModule } from './leaderboards/leaderboards-module.ts';
import { filesModule } from './files/files-module.ts';
import type { FilesOptions } from './files/files-options.ts';
import { liveQueryModule, type LiveQueryModuleOptions } from './livequery/livequery-module.ts';
import { statusesModule } from './statuses/statuses-module.ts';

/** Settings of the modules that take some (none: defaults for tests and embedded uses). */
export interface ModuleOptions {
  files?: FilesOptions;
  liveQuery?: LiveQueryModuleOptions;
}

/** The optional services this build of Larder serves (composition root; the core never imports this). */
export function defaultModules(opts: ModuleOptions = {}): LarderModule[] {
  return [friendsModule(), cqlModule(), leaderboardsModule(), statusesModule(), filesModule(opts.files), liveQueryModule(opts.liveQuery)];
}
