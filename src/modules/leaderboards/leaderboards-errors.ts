/**
 * The leaderboards module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors, type ErrorSpec } from '../../module-api/errors.ts';

function e(code: number, status: number, message: string): ErrorSpec {
  return { code, status, message };
}

/** Builds a leaderboards error: `throw leaderboardError('leaderboardNotFound')`. */
export const leaderboardError = defineErrors('leaderboards', {
  leaderboardNotFound: e(1, 404, 'Leaderboard not found.'),
  leaderboardExists: e(1, 400, 'A leaderboard with this statisticName already exists.'),
});
