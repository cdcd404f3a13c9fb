/**
 * The leaderboard API under /1.1/leaderboard, as the JS SDK's `AV.Leaderboard` calls it
 * (docs/leaderboards.md). Managing leaderboards and reading archives needs the master key; a
 * user updates and deletes its own statistics (the master key anyone's); rankings and
 * statistics are readable by every caller, as a scoreboard is.
 */
import type { RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { includeParam, flag, text, ok, type ApiRequest, type QueryParams, type Route } from '../../module-api/http.ts';
import { isFieldReference, isPlainObject, isValidObjectId, sql } from '../../module-api/data.ts';
import { parseSkip } from '../../module-api/reads.ts';
import { listArchives } from './archives.ts';
import { checkStatisticName, choice, DEFAULTS, INTERVALS, ORDERS, UPDATE_STRATEGIES } from './leaderboard-rules.ts';
import { boardJson, changeBoard, createBoard, deleteBoard, readBoard, resetBoard } from './leaderboard-store.ts';
import { DEFAULT_RANK_LIMIT, MAX_RANK_LIMIT, rankings, type RankQuery } from './rankings.ts';
import { deleteStatistics, getStatistics, parseStatistics, updateStatistics } from './statistics.ts';

/** Most names in one comma-separated list parameter. */
const MAX_LIST = 100;

function masterOnly(ctx: RequestContext): void {
  if (!ctx.master) throw new ApiError('masterKeyRequired');
}

/** A comma-separated list parameter, each item checked. */
function list(q: QueryParams, name: string, check: (s: string) => string): string[] {
  const raw = text(q, name);
  if (!raw) return [];
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length > MAX_LIST) throw new ApiError('badRequest', `At most ${MAX_LIST} entries in ${name}.`);
  return [...new Set(items.map(check))];
}

function userKey(k: string): string {
  if (!isFieldReference(k)) throw new ApiError('invalidKeyName', `Invalid user key ${JSON.stringify(k.slice(0, 80))} in selectUserKeys.`);
  return k;
}

function intParam(q: QueryParams, name: string): number | undefined {
  const raw = text(q, name);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new ApiError('badRequest', `${name} must be a non-negative integer.`);
  return n;
}

function rankQuery(q: QueryParams): RankQuery {
  const limit = intParam(q, 'limit') ?? DEFAULT_RANK_LIMIT;
  return {
    skip: parseSkip(q.skip),
    limit: Math.min(limit, MAX_RANK_LIMIT),
    count: flag(q, 'count'),
    selectUserKeys: list(q, 'selectUserKeys', userKey),
    includeUser: includeParam({ include: text(q, 'includeUser') }),
    includeStatistics: list(q, 'includeStatistics', checkStatisticName),
    version: intParam(q, 'version'),
  };
}

/** The user a statistics path names: `self` is the session's user; another id needs to be the caller or the master key. */
async function pathUser(req: ApiRequest, write: boolean): Promise<string> {
  const id = req.params.userId;
  const p = await req.ctx.principal();
  if (id === 'self') {
    if (!p.userId) throw new ApiError('sessionRequired', 'users/self needs the session of a user (X-LC-Session).');
    return p.userId;
  }
  if (!isValidObjectId(id)) throw new ApiError('missingObjectId', `Invalid user id '${id.slice(0, 80)}'.`);
  if (write && !p.master && p.userId !== id) throw new ApiError('sessionRequired', "A user may change only its own statistics (or use the master key).");
  return id;
}

async function requireUser(ctx: RequestContext, id: string): Promise<void> {
  const rows = await ctx.app.db.query(sql`SELECT 1 FROM "_User" WHERE "objectId" = ${id}`);
  if (!rows.length) throw new ApiError('userNotFound');
}

const name = (req: ApiRequest) => checkStatisticName(req.params.name);

/** The routes of the leaderboard module. */
export const leaderboardRoutes: Route[] = [
  {
    method: 'POST',
    path: '/1.1/leaderboard/leaderboards',
    handler: async (req) => {
      masterOnly(req.ctx);
      const b = isPlainObject(req.body) ? req.body : {};
      const board = await createBoard(req.ctx.app, checkStatisticName(b.statisticName), {
        order: choice('order', b.order, ORDERS, DEFAULTS.order),
        updateStrategy: choice('updateStrategy', b.updateStrategy, UPDATE_STRATEGIES, DEFAULTS.updateStrategy),
        interval: choice('versionChangeInterval', b.versionChangeInterval, INTERVALS, DEFAULTS.versionChangeInterval),
      });
      return ok(boardJson(board));
    },
  },
  { method: 'GET', path: '/1.1/leaderboard/leaderboards/:name', handler: async (req) => ok(boardJson(await readBoard(req.ctx.app, name(req)))) },
  {
    method: 'PUT',
    path: '/1.1/leaderboard/leaderboards/:name',
    handler: async (req) => {
      masterOnly(req.ctx);
      if (!isPlainObject(req.body)) throw new ApiError('invalidJson');
      const b = req.body;
      const known = ['order', 'updateStrategy', 'versionChangeInterval'];
      const unknown = Object.keys(b).find((k) => !known.includes(k));
      if (unknown) throw new ApiError('badRequest', `Cannot change ${JSON.stringify(unknown.slice(0, 40))}; a leaderboard's order, updateStrategy and versionChangeInterval can be changed.`);
      const board = await changeBoard(req.ctx.app, name(req), {
        order: b.order === undefined ? undefined : choice('order', b.order, ORDERS, DEFAULTS.order),
        updateStrategy: b.updateStrategy === undefined ? undefined : choice('updateStrategy', b.updateStrategy, UPDATE_STRATEGIES, DEFAULTS.updateStrategy),
        interval: b.versionChangeInterval === undefined ? undefined : choice('versionChangeInterval', b.versionChangeInterval, INTERVALS, DEFAULTS.versionChangeInterval),
      });
      return ok(boardJson(board));
    },
  },
  {
    method: 'PUT',
    path: '/1.1/leaderboard/leaderboards/:name/incrementVersion',
    handler: async (req) => {
      masterOnly(req.ctx);
      const j = boardJson(await resetBoard(req.ctx.app, name(req)));
      return ok({ objectId: j.objectId, version: j.version, ...(j.expiredAt ? { expiredAt: j.expiredAt } : {}), activatedAt: j.activatedAt, updatedAt: j.updatedAt });
    },
  },
  {
    method: 'DELETE',
    path: '/1.1/leaderboard/leaderboards/:name',
    handler: async (req) => {
      masterOnly(req.ctx);
      await deleteBoard(req.ctx.app, name(req));
      return ok({});
    },
  },
  {
    method: 'GET',
    path: '/1.1/leaderboard/leaderboards/:name/archives',
    handler: async (req) => {
      masterOnly(req.ctx);
      const limit = Math.min(intParam(req.query, 'limit') ?? 100, 1000);
      return ok({ results: await listArchives(req.ctx.app, req.ctx.baseUrl, name(req), parseSkip(req.query.skip), limit) });
    },
  },
  { method: 'GET', path: '/1.1/leaderboard/leaderboards/:name/ranks', handler: async (req) => ok(await rankings(req.ctx, name(req), rankQuery(req.query))) },
  {
    method: 'GET',
    path: '/1.1/leaderboard/leaderboards/:name/ranks/:userId',
    handler: async (req) => ok(await rankings(req.ctx, name(req), rankQuery(req.query), await pathUser(req, false))),
  },
  {
    method: 'GET',
    path: '/1.1/leaderboard/users/:userId/statistics',
    handler: async (req) => {
      const names = text(req.query, 'statistics') === undefined ? undefined : list(req.query, 'statistics', checkStatisticName);
      return ok({ results: await getStatistics(req.ctx.app, await pathUser(req, false), names) });
    },
  },
  {
    method: 'POST',
    path: '/1.1/leaderboard/users/:userId/statistics',
    handler: async (req) => {
      const userId = await pathUser(req, true);
      const overwrite = flag(req.query, 'overwrite');
      if (overwrite) masterOnly(req.ctx);
      const items = parseStatistics(req.body);
      if (req.ctx.master) await requireUser(req.ctx, userId);
      return ok({ results: await updateStatistics(req.ctx.app, userId, items, overwrite) });
    },
  },
  {
    method: 'DELETE',
    path: '/1.1/leaderboard/users/:userId/statistics',
    handler: async (req) => {
      const userId = await pathUser(req, true);
      const names = list(req.query, 'statistics', checkStatisticName);
      if (!names.length) throw new ApiError('badRequest', 'Name the statistics to delete: statistics=a,b.');
      await deleteStatistics(req.ctx.app, userId, names);
      return ok({});
    },
  },
];
