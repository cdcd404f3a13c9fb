import type { LarderModule } from '../../module-api/larder-module.ts';
import { statusRoutes } from './routes.ts';

/**
 * Statuses and inboxes (`AV.Status`): a status goes to the inboxes of the sender's followers
 * (the follow relations of the storage follow API) or of given users. docs/statuses.md.
 */
export function statusesModule(): LarderModule {
  return { name: 'statuses', routes: () => statusRoutes };
}
