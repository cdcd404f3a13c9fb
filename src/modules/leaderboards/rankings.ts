/**
 * Rankings (`GET /1.1/leaderboard/leaderboards/<name>/ranks[/<userId>]`): the top of a version,
 * or the entries around one user, with the user objects' selected keys and other statistics.
 * Every query walks the `_larder_lb_rank` index in (sort_key, reached_at, user_id) order; a
 * user's rank is the number of entries before it in that order (ranks start at 0, ties are
 * broken by who reached the value first).
 */
import { nowOf, type RequestContext } from '../../module-api/context.ts';
import { ApiError } from '../../module-api/errors.ts';
import { encodeRow, type WireObject, OBJECT_COLUMNS, type ObjectRow, toIso, sql } from '../../module-api/data.ts';
import { resolveIncludes, accessOf, droppedFrom, fieldView, selectByIds } from '../../module-api/reads.ts';
import { readBoard, readBoards, type Board } from './leaderboard-store.ts';
import type { StatisticJson } from './statistics.ts';
import { leaderboardError } from './leaderboards-errors.ts';

/** Results per page when `limit` is absent (the REST guide's default) and the most allowed. */
export const DEFAULT_RANK_LIMIT = 20;
export const MAX_RANK_LIMIT = 1000;
/** How long a `never` leaderboard's previous version stays queryable after a reset by hand. */
export const PREVIOUS_VERSION_DAYS = 7;

/** What a rankings request asks for. */
export interface RankQuery {
  skip: number;
  limit: number;
  count: boolean;
  /** `_User` keys to show in each ranking's user (with includeUser's keys). */
  selectUserKeys: string[];
  includeUser: string[][];
  includeStatistics: string[];
  version?: number;
}

interface EntryRow {
  user_id: string;
  value: number;
  sort_key: number;
  reached_at: unknown;
}

/** The version a query reads: the current one, or the previous one while it is still offered. */
async function versionToRead(ctx: RequestContext, b: Board, asked: number | undefined): Promise<number> {
  if (asked === undefined || asked === b.version) return b.version;
  if (asked === b.version - 1) {
    if (b.version_change_interval !== 'never') return asked;
    const rows = await ctx.app.db.query<{ deactivated_at: unknown }>(sql`SELECT deactivated_at FROM _larder_leaderboard_archives WHERE name = ${b.name} AND version = ${asked}`);
    const ended = rows[0] ? new Date(toIso(rows[0].deactivated_at)).getTime() : 0;
    if (nowOf(ctx.app).getTime() - ended <= PREVIOUS_VERSION_DAYS * 86_400_000) return asked;
  }
  throw new ApiError('badRequest', `Version ${asked} of leaderboard ${b.name} cannot be queried: only the current version (${b.version}) and the one before it are (a 'never' leaderboard's for ${PREVIOUS_VERSION_DAYS} days); older versions are in the archives.`);
}

/** The users of the page: pointers, with the selected keys of those the caller may read. */
async function usersOf(ctx: RequestContext, ids: string[], q: RankQuery): Promise<Map<string, WireObject>> {
  const out = new Map<string, WireObject>(ids.map((id) => [id, { __type: 'Pointer', className: '_User', objectId: id }]));
  const keys = [...new Set([...q.selectUserKeys, ...q.includeUser.map((p) => p[0])])];
  if (!keys.length || !ids.length) return out;
  const access = await accessOf(ctx);
  // Showing a user's keys is a read of the user: a `_User` closed for `get` leaves the pointers
  // bare, exactly as an include of `_User` pointers does (objects/include.ts).
  if (!(await access.permits('_User', 'get'))) return out;
  const view = fieldView(access, '_User');
  // The row ACL decides, as for any read of a user; hidden and client-invisible fields (password,
  // tokens, other users' email and phone) never show.
  const rows = await ctx.app.db.query<ObjectRow>(selectByIds(access, '_User', OBJECT_COLUMNS, ids));
  const objects: WireObject[] = [];
  for (const r of rows) {
    const full = encodeRow(r, { className: '_User', withAcl: false, master: view.master, drop: droppedFrom(view, r.objectId) });
    const picked: WireObject = { __type: 'Pointer', className: '_User', objectId: r.objectId };
    for (const k of keys) if (full[k] !== undefined) picked[k] = full[k];
    out.set(r.objectId, picked);
    objects.push(picked);
  }
  if (q.includeUser.length) await resolveIncludes({ db: ctx.app.db, classes: ctx.app.classes, access }, objects, q.includeUser);
  return out;
}

/** The other statistics of the page's users, current versions, null where a user has none. */
async function otherStatistics(ctx: RequestContext, ids: string[], names: string[]): Promise<Map<string, StatisticJson[]>> {
  const out = new Map<string, StatisticJson[]>();
  if (!names.length) return out;
  const boards = await readBoards(ctx.app, names);
  const missing = names.find((n) => !boards.some((b) => b.name === n));
  if (missing) throw leaderboardError('leaderboardNotFound', `includeStatistics names an unknown leaderboard: ${missing}.`);
  const rows = await ctx.app.db.query<{ user_id: string; name: string; value: number; version: number }>(sql`SELECT e.user_id, e.name, e.value, e.version
    FROM _larder_leaderboard_entries e JOIN _larder_leaderboards l ON l.name = e.name AND l.version = e.version
    WHERE e.user_id = ANY(${ids}::text[]) AND e.name = ANY(${names}::text[])`);
  for (const id of ids) {
    out.set(id, names.map((n) => {
      const r = rows.find((x) => x.user_id === id && x.name === n);
      return r ? { statisticName: n, statisticValue: Number(r.value), version: r.version } : { statisticName: n, statisticValue: null, version: null };
    }));
  }
  return out;
}

/** The rank of a user's entry: how many entries of the version come before it. */
async function rankOf(ctx: RequestContext, name: string, version: number, e: EntryRow): Promise<number> {
  const [{ n }] = await ctx.app.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_leaderboard_entries
    WHERE name = ${name} AND version = ${version} AND (sort_key, reached_at, user_id) < (${e.sort_key}::float8, ${toIso(e.reached_at)}::timestamptz, ${e.user_id})`);
  return n;
}

/** The page of entries around a user: up to limit, the user in the middle where possible. */
async function aroundUser(ctx: RequestContext, name: string, version: number, userId: string, limit: number): Promise<{ rows: EntryRow[]; first: number }> {
  const db = ctx.app.db;
  const mine = await db.query<EntryRow>(sql`SELECT user_id, value, sort_key, reached_at FROM _larder_leaderboard_entries WHERE name = ${name} AND version = ${version} AND user_id = ${userId}`);
  const me = mine[0];
  if (!me || limit === 0) return { rows: [], first: 0 };
  const key = sql`(${me.sort_key}::float8, ${toIso(me.reached_at)}::timestamptz, ${me.user_id})`;
  const before = await db.query<EntryRow>(sql`SELECT user_id, value, sort_key, reached_at FROM _larder_leaderboard_entries
    WHERE name = ${name} AND version = ${version} AND (sort_key, reached_at, user_id) < ${key}
    ORDER BY sort_key DESC, reached_at DESC, user_id DESC LIMIT ${limit - 1}`);
  const after = await db.query<EntryRow>(sql`SELECT user_id, value, sort_key, reached_at FROM _larder_leaderboard_entries
    WHERE name = ${name} AND version = ${version} AND (sort_key, reached_at, user_id) > ${key}
    ORDER BY sort_key, reached_at, user_id LIMIT ${limit - 1}`);
  const half = Math.floor((limit - 1) / 2);
  const nBefore = Math.min(before.length, half + Math.max(0, limit - 1 - half - after.length));
  const nAfter = Math.min(after.length, limit - 1 - nBefore);
  const rank = await rankOf(ctx, name, version, me);
  return { rows: [...before.slice(0, nBefore).reverse(), me, ...after.slice(0, nAfter)], first: rank - nBefore };
}

/** The rankings page of a leaderboard, or around `aroundUserId`. */
export async function rankings(ctx: RequestContext, name: string, q: RankQuery, aroundUserId?: string): Promise<{ results: WireObject[]; count?: number }> {
  const board = await readBoard(ctx.app, name);
  const version = await versionToRead(ctx, board, q.version);
  let page: { rows: EntryRow[]; first: number };
  if (aroundUserId !== undefined) {
    page = await aroundUser(ctx, name, version, aroundUserId, q.limit);
  } else {
    const rows = q.limit === 0 ? [] : await ctx.app.db.query<EntryRow>(sql`SELECT user_id, value, sort_key, reached_at FROM _larder_leaderboard_entries
      WHERE name = ${name} AND version = ${version} ORDER BY sort_key, reached_at, user_id LIMIT ${q.limit} OFFSET ${q.skip}`);
    page = { rows, first: q.skip };
  }
  const ids = page.rows.map((r) => r.user_id);
  const [users, stats] = await Promise.all([usersOf(ctx, ids, q), otherStatistics(ctx, ids, q.includeStatistics)]);
  const results = page.rows.map((r, i) => ({
    statisticName: name,
    statisticValue: Number(r.value),
    rank: page.first + i,
    user: users.get(r.user_id),
    ...(q.includeStatistics.length ? { statistics: stats.get(r.user_id) ?? [] } : {}),
  }));
  if (!q.count) return { results };
  const [{ n }] = await ctx.app.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_leaderboard_entries WHERE name = ${name} AND version = ${version}`);
  return { results, count: n };
}
