import type { LarderModule } from '../larder-module.ts';
import { cqlModule } from './cql/cql-module.ts';
import { friendsModule } from './friends/friends-module.ts';
import { leaderboardsModule } from './leaderboards/leaderboards-module.ts';

/** The optional services this build of Larder serves (composition root; the core never imports this). */
export function defaultModules(): LarderModule[] {
  return [friendsModule(), cqlModule(), leaderboardsModule()];
}
