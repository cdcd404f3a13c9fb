/**
 * The pure rules of leaderboards (LeanCloud's leaderboard guide): names, the three enums with
 * their defaults, and the reset times of the version change intervals. No I/O here.
 */
import { ApiError } from '../../module-api/errors.ts';

/** Ascending: lower is better (race times); descending: higher is better (scores). */
export const ORDERS = ['ascending', 'descending'] as const;
/** better keeps the best value, last the latest, sum adds every update. */
export const UPDATE_STRATEGIES = ['better', 'last', 'sum'] as const;
/** When the leaderboard starts a new version by itself. */
export const INTERVALS = ['day', 'week', 'month', 'never'] as const;

export type LeaderboardOrder = (typeof ORDERS)[number];
export type UpdateStrategy = (typeof UPDATE_STRATEGIES)[number];
export type VersionChangeInterval = (typeof INTERVALS)[number];

/** Defaults of a new leaderboard, as the REST guide gives them. */
export const DEFAULTS = { order: 'descending', updateStrategy: 'better', versionChangeInterval: 'week' } as const;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_]{0,127}$/;

/** A statisticName: letters, digits and underscore, starting with a letter or digit (at most 128). */
export function checkStatisticName(value: unknown): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw new ApiError('badRequest', `Invalid statisticName ${JSON.stringify(value)?.slice(0, 80) ?? 'undefined'}: use letters, digits and underscore, starting with a letter or digit (at most 128 characters).`);
  }
  return value;
}

/** One of a closed set of values, or the default when absent. */
export function choice<T extends string>(what: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ApiError('badRequest', `Invalid ${what} ${JSON.stringify(value)?.slice(0, 40)}: use one of ${allowed.join(', ')}.`);
  }
  return value as T;
}

/**
 * The first reset time after `now`: the next UTC midnight (day), the next Monday 00:00 UTC
 * (week), the first of the next month 00:00 UTC (month), none for never. LeanCloud reset US apps
 * at 00:00 UTC and Chinese apps at 00:00 Beijing time; Larder uses UTC.
 */
export function nextReset(interval: VersionChangeInterval, now: Date): Date | undefined {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  switch (interval) {
    case 'day':
      return new Date(Date.UTC(y, m, d + 1));
    case 'week': {
      // getUTCDay: 0 is Sunday; days until the next Monday, 7 when today is Monday.
      const days = ((8 - now.getUTCDay()) % 7) || 7;
      return new Date(Date.UTC(y, m, d + days));
    }
    case 'month':
      return new Date(Date.UTC(y, m + 1, 1));
    case 'never':
      return undefined;
  }
}

/**
 * The last reset time at or before `now` (the start of the current period); `now` itself for
 * never. Used when a version expired while nobody touched the leaderboard.
 */
export function periodStart(interval: VersionChangeInterval, now: Date): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  switch (interval) {
    case 'day':
      return new Date(Date.UTC(y, m, d));
    case 'week':
      return new Date(Date.UTC(y, m, d - ((now.getUTCDay() + 6) % 7)));
    case 'month':
      return new Date(Date.UTC(y, m, 1));
    case 'never':
      return now;
  }
}

/** A statistic value: a finite number. */
export function checkValue(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ApiError('badRequest', `statisticValue of ${name} must be a finite number.`);
  }
  return value;
}
