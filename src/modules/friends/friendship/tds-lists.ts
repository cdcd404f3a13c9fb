import type { RequestContext } from '../../../module-api/context.ts';
import { encodeRow, type WireObject, OBJECT_COLUMNS, type ObjectRow, sql, type Sql } from '../../../module-api/data.ts';
import { accessOf, droppedFrom, fieldView, selectByIds } from '../../../module-api/reads.ts';
import { presenceOf, type PlayerPresence } from '../presence/presence-of.ts';
import { presenceVisibleTo } from '../presence/presence-audience.ts';
import { friendTablesReady, pointerId } from './friend-tables.ts';
import type { ListParams } from './list-params.ts';

/** Which list of the caller: whom it follows, who follows it, mutual follows, friends, blocked. */
export type ListKind = 'follow' | 'fans' | 'mutual' | 'friends' | 'block';

/** One entry of a /friend/v2 list, as the TDS SDK reads it. */
interface Entry {
  tdsUser: WireObject;
  online: boolean;
  richPresence: Record<string, string>;
}

function source(kind: ListKind, owner: string): Sql {
  const blockedByOwner = sql`NOT EXISTS (SELECT 1 FROM "_FriendBlocklist" b WHERE ${pointerId('user', 'b')} = ${owner} AND ${pointerId('blockedUser', 'b')} = ${pointerId('followee', 'f')})`;
  switch (kind) {
    case 'follow':
      return sql`SELECT ${pointerId('followee', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_Followee" f WHERE ${pointerId('user', 'f')} = ${owner}`;
    case 'fans':
      return sql`SELECT ${pointerId('follower', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_Follower" f WHERE ${pointerId('user', 'f')} = ${owner}`;
    case 'mutual':
    case 'friends':
      return sql`SELECT ${pointerId('followee', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_Followee" f
        WHERE ${pointerId('user', 'f')} = ${owner} AND f.data->'friendStatus' = 'true'::jsonb AND ${blockedByOwner}`;
    case 'block':
      return sql`SELECT ${pointerId('blockedUser', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_FriendBlocklist" f WHERE ${pointerId('user', 'f')} = ${owner}`;
  }
}

// Contact details stay private in another user's list entry, whatever the _User ACL and the
// app's invisible fields say (the planner's view drops those; these go too).
const PRIVATE_USER_FIELDS = ['email', 'mobilePhoneNumber', 'emailVerified', 'mobilePhoneVerified'];

async function usersById(ctx: RequestContext, ids: readonly string[]): Promise<Map<string, WireObject>> {
  const access = await accessOf(ctx);
  const view = fieldView(access, '_User');
  const rows = await ctx.app.db.query<ObjectRow>(selectByIds(access, '_User', OBJECT_COLUMNS, ids));
  const out = new Map<string, WireObject>();
  for (const r of rows) {
    const u = encodeRow(r, { className: '_User', withAcl: false, master: view.master, drop: droppedFrom(view, r.objectId) });
    for (const k of PRIVATE_USER_FIELDS) delete u[k];
    out.set(r.objectId, u);
  }
  return out;
}

const HIDDEN: PlayerPresence = { online: false, richPresence: {} };

/**
 * Presence of list members, shown to the owner as the app's richPresenceAudience allows
 * (presence-audience.ts: every user but those blocked either way, or only friends). Hidden
 * members appear offline with no rich presence.
 */
async function visiblePresence(ctx: RequestContext, owner: string, ids: readonly string[], lang?: string): Promise<PlayerPresence[]> {
  const allowed = await presenceVisibleTo(ctx.app, owner, ids);
  const shown = ids.filter((id) => allowed.has(id));
  const found = await presenceOf(ctx.app, shown, lang);
  const byId = new Map(shown.map((id, i) => [id, found[i]]));
  return ids.map((id) => byId.get(id) ?? HIDDEN);
}

function compareBy(sort: ListParams['sort']): (a: PlayerPresence, b: PlayerPresence) => number {
  if (sort.kind === 'online') return (a, b) => Number(b.online) - Number(a.online);
  if (sort.kind === 'presence') {
    const f = sort.field;
    // Users with the field first, by value (numbers numerically); the rest keep their order.
    return (a, b) => {
      const x = a.richPresence[f];
      const y = b.richPresence[f];
      if (x === undefined || x === '') return y === undefined || y === '' ? 0 : 1;
      if (y === undefined || y === '') return -1;
      const nx = Number(x);
      const ny = Number(y);
      if (Number.isFinite(nx) && Number.isFinite(ny)) return nx - ny;
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  return () => 0;
}

/**
 * A page of one of the caller's lists: `{results: [{tdsUser, online, richPresence}],
 * isLastPage, nextSkip}` (the TDS SDK pages with `nextSkip` until `isLastPage`). Default order
 * is newest relation first; sorting by online state or a rich presence field orders the whole
 * list (at most 5,000 followees) before paging, stable on the default order.
 */
export async function listPage(ctx: RequestContext, owner: string, kind: ListKind, p: ListParams): Promise<Record<string, unknown>> {
  if (!(await friendTablesReady(ctx.app))) return { results: [], isLastPage: true };
  const base = source(kind, owner);
  const ordered = sql`SELECT id FROM (${base}) s ORDER BY at DESC, oid`;
  let pageIds: string[];
  let presence: PlayerPresence[];
  let more: boolean;
  if (p.sort.kind === 'recent') {
    const rows = await ctx.app.db.query<{ id: string }>(sql`${ordered} LIMIT ${p.size + 1} OFFSET ${p.offset}`);
    more = rows.length > p.size;
    pageIds = rows.slice(0, p.size).map((r) => r.id);
    presence = kind === 'block' ? pageIds.map(() => HIDDEN) : await visiblePresence(ctx, owner, pageIds, p.lang);
  } else {
    const all = (await ctx.app.db.query<{ id: string }>(ordered)).map((r) => r.id);
    const pres = kind === 'block' ? all.map(() => HIDDEN) : await visiblePresence(ctx, owner, all, p.lang);
    const cmp = compareBy(p.sort);
    const idx = all.map((_, i) => i).sort((i, j) => cmp(pres[i], pres[j]) || i - j);
    const page = idx.slice(p.offset, p.offset + p.size);
    more = p.offset + p.size < all.length;
    pageIds = page.map((i) => all[i]);
    presence = page.map((i) => pres[i]);
  }
  const users = await usersById(ctx, pageIds);
  const results: Entry[] = [];
  pageIds.forEach((id, i) => {
    const u = users.get(id);
    // A deleted (or unreadable) user leaves no entry rather than an empty one.
    if (u) results.push({ tdsUser: u, online: presence[i].online, richPresence: presence[i].richPresence });
  });
  const out: Record<string, unknown> = { results, isLastPage: !more };
  if (more) out.nextSkip = String(p.offset + p.size);
  return out;
}
