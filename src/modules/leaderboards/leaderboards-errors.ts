/**
 * The leaderboards module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors } from '../../module-api/errors.ts';

/** Builds a leaderboards error: `throw leaderboardError('leaderboardNotFound')`. */
export const leaderboardError = defineErrors('leaderboards', {
  leaderboardNotFound: [1, 404, 'Leaderboard not found.'],
  leaderboardExists: [1, 400, 'A leaderboard with this statisticName already exists.'],
});
