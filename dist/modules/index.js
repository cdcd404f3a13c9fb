import { cqlModule } from './cql/cql-module.js';
import { friendsModule } from './friends/friends-module.js';
import { leaderboardsModule } from './leaderboards/leaderboards-module.js';
/** The optional services this build of Larder serves (composition root; the core never imports this). */
export function defaultModules() {
    return [friendsModule(), cqlModule(), leaderboardsModule()];
}
//# sourceMappingURL=index.js.map