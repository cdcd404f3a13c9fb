import { readersOf } from '../../../app-context.js';
import { encodeRow } from '../../../objects/encode.js';
import { OBJECT_COLUMNS } from '../../../objects/object-row.js';
import { aclClause } from '../../../query/sql/compile-subquery.js';
import { sql } from '../../../sql/fragment.js';
import { presenceOf } from '../presence/presence-of.js';
import { friendIdsOf } from './friend-ids.js';
import { friendTablesReady, pointerId } from './friend-tables.js';
function source(kind, owner) {
    const blockedByOwner = sql `NOT EXISTS (SELECT 1 FROM "_FriendBlocklist" b WHERE ${pointerId('user', 'b')} = ${owner} AND ${pointerId('blockedUser', 'b')} = ${pointerId('followee', 'f')})`;
    switch (kind) {
        case 'follow':
            return sql `SELECT ${pointerId('followee', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_Followee" f WHERE ${pointerId('user', 'f')} = ${owner}`;
        case 'fans':
            return sql `SELECT ${pointerId('follower', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_Follower" f WHERE ${pointerId('user', 'f')} = ${owner}`;
        case 'mutual':
        case 'friends':
            return sql `SELECT ${pointerId('followee', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_Followee" f
        WHERE ${pointerId('user', 'f')} = ${owner} AND f.data->'friendStatus' = 'true'::jsonb AND ${blockedByOwner}`;
        case 'block':
            return sql `SELECT ${pointerId('blockedUser', 'f')} AS id, f."createdAt" AS at, f."objectId" AS oid FROM "_FriendBlocklist" f WHERE ${pointerId('user', 'f')} = ${owner}`;
    }
}
// Contact details stay private in another user's list entry, whatever the _User ACL says.
const PRIVATE_USER_FIELDS = ['email', 'mobilePhoneNumber', 'emailVerified', 'mobilePhoneVerified'];
async function usersById(ctx, ids) {
    const readers = await readersOf(ctx);
    const rows = await ctx.app.db.query(sql `SELECT ${OBJECT_COLUMNS} FROM "_User" WHERE "objectId" = ANY(${[...ids]}::text[]) AND ${aclClause(readers)}`);
    const out = new Map();
    for (const r of rows) {
        const u = encodeRow(r, { className: '_User', withAcl: false });
        for (const k of PRIVATE_USER_FIELDS)
            delete u[k];
        out.set(r.objectId, u);
    }
    return out;
}
const HIDDEN = { online: false, richPresence: {} };
/**
 * Presence of list members, shown only for the owner's friends (friend-ids.ts: accepted
 * friends, or mutual follows): a one-way follow or a block does not reveal whether someone
 * is online. Everyone else appears offline with no rich presence.
 */
async function visiblePresence(ctx, owner, ids, lang) {
    const friends = new Set(await friendIdsOf(ctx.app, owner, ids));
    const shown = ids.filter((id) => friends.has(id));
    const found = await presenceOf(ctx.app, shown, lang);
    const byId = new Map(shown.map((id, i) => [id, found[i]]));
    return ids.map((id) => byId.get(id) ?? HIDDEN);
}
function compareBy(sort) {
    if (sort.kind === 'online')
        return (a, b) => Number(b.online) - Number(a.online);
    if (sort.kind === 'presence') {
        const f = sort.field;
        // Users with the field first, by value (numbers numerically); the rest keep their order.
        return (a, b) => {
            const x = a.richPresence[f];
            const y = b.richPresence[f];
            if (x === undefined || x === '')
                return y === undefined || y === '' ? 0 : 1;
            if (y === undefined || y === '')
                return -1;
            const nx = Number(x);
            const ny = Number(y);
            if (Number.isFinite(nx) && Number.isFinite(ny))
                return nx - ny;
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
export async function listPage(ctx, owner, kind, p) {
    if (!(await friendTablesReady(ctx.app)))
        return { results: [], isLastPage: true };
    const base = source(kind, owner);
    const ordered = sql `SELECT id FROM (${base}) s ORDER BY at DESC, oid`;
    let pageIds;
    let presence;
    let more;
    if (p.sort.kind === 'recent') {
        const rows = await ctx.app.db.query(sql `${ordered} LIMIT ${p.size + 1} OFFSET ${p.offset}`);
        more = rows.length > p.size;
        pageIds = rows.slice(0, p.size).map((r) => r.id);
        presence = kind === 'block' ? pageIds.map(() => HIDDEN) : await visiblePresence(ctx, owner, pageIds, p.lang);
    }
    else {
        const all = (await ctx.app.db.query(ordered)).map((r) => r.id);
        const pres = kind === 'block' ? all.map(() => HIDDEN) : await visiblePresence(ctx, owner, all, p.lang);
        const cmp = compareBy(p.sort);
        const idx = all.map((_, i) => i).sort((i, j) => cmp(pres[i], pres[j]) || i - j);
        const page = idx.slice(p.offset, p.offset + p.size);
        more = p.offset + p.size < all.length;
        pageIds = page.map((i) => all[i]);
        presence = page.map((i) => pres[i]);
    }
    const users = await usersById(ctx, pageIds);
    const results = [];
    pageIds.forEach((id, i) => {
        const u = users.get(id);
        // A deleted (or unreadable) user leaves no entry rather than an empty one.
        if (u)
            results.push({ tdsUser: u, online: presence[i].online, richPresence: presence[i].richPresence });
    });
    const out = { results, isLastPage: !more };
    if (more)
        out.nextSkip = String(p.offset + p.size);
    return out;
}
//# sourceMappingURL=tds-lists.js.map