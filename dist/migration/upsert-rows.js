/**
 * The idempotent multi-row upsert of migrated rows: one INSERT ... ON CONFLICT ("objectId") DO
 * UPDATE per batch, rows passed as parallel arrays through unnest (7 parameters whatever the
 * batch size). An existing row is replaced only when the incoming updatedAt is newer or equal
 * AND something differs, so a re-run writes nothing. For `_User`, hidden fields the incoming row
 * lacks are kept (write-objects.ts contract), and the platform bindings of authData are written
 * in the same transaction. A batch that fails on one record's data is split in halves until the
 * bad records are isolated; each of those is reported, the others written.
 */
import { empty, ident, sql } from '../sql/fragment.js';
import { userWriteError } from '../users/unique-violation.js';
import { ApiError } from '../errors/api-error.js';
import { importBindings } from './import-bindings.js';
import { errorReason } from './record-failure.js';
// Kept from the stored row when the incoming document lacks them: relation markers (membership
// lives in the join table, and exports may write the marker on no row) and, for `_User`, the
// hidden fields REST reads never show.
const KEEP_RELATIONS = sql `((t.data - ARRAY(SELECT e.k FROM jsonb_each(t.data) AS e(k, v)
  WHERE NOT (jsonb_typeof(e.v) = 'object' AND e.v->>'__type' = 'Relation'))) || EXCLUDED.data)`;
const KEEP_USER = sql `((t.data - ARRAY(SELECT e.k FROM jsonb_each(t.data) AS e(k, v)
  WHERE e.k <> ALL(ARRAY['password', 'salt', 'sessionToken', 'authData'])
    AND NOT (jsonb_typeof(e.v) = 'object' AND e.v->>'__type' = 'Relation'))) || EXCLUDED.data)`;
function statement(className, rows) {
    const merged = className === '_User' ? KEEP_USER : KEEP_RELATIONS;
    const extra = className === '_User' ? sql `, data->'authData' AS auth` : empty;
    // One jsonb parameter holding every row: PostgreSQL parses it once with its C JSON parser,
    // several times faster than array literals of escaped JSON text (measured: docs/benchmarks.md).
    const payload = JSON.stringify(rows.map((r) => ({ id: r.row.objectId, ca: r.row.createdAt, ua: r.row.updatedAt, acl: r.row.acl, rp: r.row.rperm, wp: r.row.wperm, data: r.row.data })));
    return sql `INSERT INTO ${ident(className)} AS t ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
    SELECT id, ca, ua, acl, rp, wp, data
    FROM jsonb_to_recordset(${payload}::jsonb) AS x(id text, ca timestamptz, ua timestamptz, acl jsonb, rp text[], wp text[], data jsonb)
    ON CONFLICT ("objectId") DO UPDATE SET "createdAt" = EXCLUDED."createdAt", "updatedAt" = EXCLUDED."updatedAt",
      acl = EXCLUDED.acl, rperm = EXCLUDED.rperm, wperm = EXCLUDED.wperm, data = ${merged}
    WHERE t."updatedAt" <= EXCLUDED."updatedAt"
      AND (t."createdAt", t."updatedAt", t.acl, t.data) IS DISTINCT FROM (EXCLUDED."createdAt", EXCLUDED."updatedAt", EXCLUDED.acl, ${merged})
    RETURNING "objectId" AS id, (xmax = 0) AS inserted ${extra}`;
}
/** Replaces the platform bindings of the written users by those of their stored authData. */
async function rebind(tx, written) {
    if (!written.length)
        return;
    await tx.query(sql `DELETE FROM _larder_auth_bindings WHERE user_id = ANY(${written.map((w) => w.id)}::text[])`);
    const users = [];
    const platforms = [];
    const uids = [];
    const seen = new Map();
    for (const w of written) {
        for (const b of importBindings(w.auth)) {
            // Two users of one batch claiming one account: refused here (one statement cannot say
            // which); the batch is then split and the second claimant reported.
            const key = `${b.platform}\u0000${b.uid}`;
            const other = seen.get(key);
            if (other !== undefined && other !== w.id)
                throw new ApiError('authDataTaken', `authData.${b.platform} of this user is also claimed by user ${other}.`);
            seen.set(key, w.id);
            users.push(w.id);
            platforms.push(b.platform);
            uids.push(b.uid);
        }
    }
    if (!users.length)
        return;
    const rows = await tx.query(sql `
    INSERT INTO _larder_auth_bindings AS b (platform, uid, user_id)
      SELECT platform, uid, user_id FROM unnest(${platforms}::text[], ${uids}::text[], ${users}::text[]) AS w(platform, uid, user_id)
    ON CONFLICT (platform, uid) DO UPDATE SET user_id = b.user_id
    RETURNING platform, uid, user_id`);
    const want = new Map(users.map((u, i) => [`${platforms[i]}\u0000${uids[i]}`, u]));
    const taken = rows.find((r) => want.get(`${r.platform}\u0000${r.uid}`) !== r.user_id);
    if (taken) {
        throw new ApiError('authDataTaken', `authData.${taken.platform} of this user is already linked to user ${taken.user_id}.`);
    }
}
async function upsertOnce(db, className, rows) {
    let returned;
    if (className === '_User') {
        try {
            returned = await db.transaction(async (tx) => {
                const out = await tx.query(statement(className, rows));
                await rebind(tx, out);
                return out;
            });
        }
        catch (err) {
            throw userWriteError(err);
        }
    }
    else {
        returned = await db.query(statement(className, rows));
    }
    const inserted = returned.filter((r) => r.inserted).length;
    return { inserted, updated: returned.length - inserted };
}
/** Upserts rows (at most one per objectId); records the database refuses are returned as failed. */
export async function upsertRows(db, className, rows) {
    if (!rows.length)
        return { inserted: 0, updated: 0, failed: [] };
    try {
        return { ...(await upsertOnce(db, className, rows)), failed: [] };
    }
    catch (err) {
        const reason = errorReason(err);
        if (reason === undefined)
            throw err;
        if (rows.length === 1)
            return { inserted: 0, updated: 0, failed: [{ index: rows[0].index, objectId: rows[0].row.objectId, reason }] };
    }
    const half = Math.ceil(rows.length / 2);
    const a = await upsertRows(db, className, rows.slice(0, half));
    const b = await upsertRows(db, className, rows.slice(half));
    return { inserted: a.inserted + b.inserted, updated: a.updated + b.updated, failed: [...a.failed, ...b.failed] };
}
//# sourceMappingURL=upsert-rows.js.map