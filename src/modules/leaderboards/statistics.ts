/**
 * A user's statistics (`/1.1/leaderboard/users/<id>/statistics`): update by each leaderboard's
 * strategy, read, delete. An update is one INSERT ... ON CONFLICT DO UPDATE per statistic whose
 * new value is computed from the stored one in SQL, so concurrent updates of one user never lose
 * each other's effect (two `sum` updates both count; `better` keeps the best of both).
 */
import { nowOf, type AppContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { isPlainObject, sql, type Sql, type Queryable } from '../../module-api/data.ts';
import { checkStatisticName, checkValue, type UpdateStrategy } from './leaderboard-rules.ts';
import { lockBoard, readBoards, rollDue, type Board } from './leaderboard-store.ts';
import { ensureLeaderboardTables } from './leaderboard-tables.ts';
import { leaderboardError } from './leaderboards-errors.ts';

/** Most statistics in one update request. */
export const MAX_STATISTICS_PER_UPDATE = 100;

/** One statistic as the API shows it. */
export interface StatisticJson {
  statisticName: string;
  statisticValue: number | null;
  version: number | null;
}

/** Parses the body of an update: `[{statisticName, statisticValue}, ...]`. */
export function parseStatistics(body: unknown): { name: string; value: number }[] {
  if (!Array.isArray(body) || body.length === 0) throw new ApiError('badRequest', 'The body must be a non-empty array of {"statisticName", "statisticValue"}.');
  if (body.length > MAX_STATISTICS_PER_UPDATE) throw new ApiError('badRequest', `At most ${MAX_STATISTICS_PER_UPDATE} statistics per update.`);
  return body.map((item) => {
    if (!isPlainObject(item)) throw new ApiError('badRequest', 'Each statistic must be {"statisticName", "statisticValue"}.');
    const name = checkStatisticName(item.statisticName);
    return { name, value: checkValue(name, item.statisticValue) };
  });
}

/** The new stored value, sort key and time reached, by strategy (`e` is the stored row, EXCLUDED the new one). */
function strategySet(strategy: UpdateStrategy): Sql {
  switch (strategy) {
    case 'better':
      return sql`value = CASE WHEN EXCLUDED.sort_key < e.sort_key THEN EXCLUDED.value ELSE e.value END,
        reached_at = CASE WHEN EXCLUDED.sort_key < e.sort_key THEN EXCLUDED.reached_at ELSE e.reached_at END,
        sort_key = LEAST(e.sort_key, EXCLUDED.sort_key)`;
    case 'last':
      return sql`value = EXCLUDED.value, sort_key = EXCLUDED.sort_key,
        reached_at = CASE WHEN EXCLUDED.value = e.value THEN e.reached_at ELSE EXCLUDED.reached_at END`;
    case 'sum':
      return sql`value = e.value + EXCLUDED.value, sort_key = e.sort_key + EXCLUDED.sort_key,
        reached_at = CASE WHEN EXCLUDED.value = 0 THEN e.reached_at ELSE EXCLUDED.reached_at END`;
  }
}

/** Applies one statistic to the current version of its (share-locked) board. */
async function applyOne(tx: Queryable, b: Board, userId: string, value: number, strategy: UpdateStrategy, now: Date): Promise<StatisticJson> {
  const sortKey = b.sort_order === 'descending' ? -value : value;
  const rows = await tx.query<{ value: number; version: number }>(sql`INSERT INTO _larder_leaderboard_entries AS e (name, version, user_id, value, sort_key, reached_at)
    VALUES (${b.name}, ${b.version}, ${userId}, ${value}::float8, ${sortKey}::float8, ${now.toISOString()}::timestamptz)
    ON CONFLICT (name, version, user_id) DO UPDATE SET ${strategySet(strategy)}
    RETURNING value, version`);
  return { statisticName: b.name, statisticValue: Number(rows[0].value), version: rows[0].version };
}

/**
 * Updates statistics of a user on the current versions of their leaderboards, by each board's
 * updateStrategy, or as `last` with `overwrite` (master key). Every leaderboard must exist.
 */
export async function updateStatistics(app: AppContext, userId: string, items: { name: string; value: number }[], overwrite: boolean): Promise<StatisticJson[]> {
  const names = [...new Set(items.map((i) => i.name))];
  const boards = await readBoards(app, names);
  const missing = names.find((n) => !boards.some((b) => b.name === n));
  if (missing) throw leaderboardError('leaderboardNotFound', `Leaderboard ${missing} not found.`);
  const now = nowOf(app);
  return app.db.transaction(async (tx) => {
    const out: StatisticJson[] = [];
    for (const item of items) {
      const b = await lockBoard(tx, app, item.name, 'share');
      out.push(await applyOne(tx, b, userId, item.value, overwrite ? 'last' : b.update_strategy, now));
    }
    return out;
  });
}

/** A user's statistics on the current versions (all leaderboards, or the named ones). */
export async function getStatistics(app: AppContext, userId: string, names?: readonly string[]): Promise<StatisticJson[]> {
  await ensureLeaderboardTables(app.db);
  await rollDue(app);
  const filter = names ? sql`AND e.name = ANY(${[...names]}::text[])` : sql``;
  const rows = await app.db.query<{ name: string; value: number; version: number }>(sql`SELECT e.name, e.value, e.version
    FROM _larder_leaderboard_entries e JOIN _larder_leaderboards l ON l.name = e.name AND l.version = e.version
    WHERE e.user_id = ${userId} ${filter} ORDER BY e.name`);
  return rows.map((r) => ({ statisticName: r.name, statisticValue: Number(r.value), version: r.version }));
}

/** Deletes a user's statistics from the current versions of the named leaderboards. */
export async function deleteStatistics(app: AppContext, userId: string, names: readonly string[]): Promise<void> {
  await ensureLeaderboardTables(app.db);
  await rollDue(app);
  await app.db.query(sql`DELETE FROM _larder_leaderboard_entries e USING _larder_leaderboards l
    WHERE l.name = e.name AND l.version = e.version AND e.user_id = ${userId} AND e.name = ANY(${[...names]}::text[])`);
}
