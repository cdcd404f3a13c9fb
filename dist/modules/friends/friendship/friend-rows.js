import { ApiError } from '../../../errors/api-error.js';
import { newObjectId } from '../../../objects/object-id.js';
import { encodeRow } from '../../../objects/encode.js';
import { OBJECT_COLUMNS } from '../../../objects/object-row.js';
import { ident, sql } from '../../../sql/fragment.js';
import { permsOfAcl } from './friend-acl.js';
import { userPointer } from './friend-guard.js';
import { OTHER_FIELD, pointerId } from './friend-tables.js';
const USER_POINTER = { type: 'Pointer', className: '_User' };
function otherKey(cls) {
    return OTHER_FIELD[cls];
}
function pairFilter(key) {
    return sql `${pointerId('user')} = ${key.owner} AND ${pointerId(otherKey(key.cls))} = ${key.other}`;
}
/**
 * Inserts a row, or, when the pair already has one, merges the new fields into it (`merge`)
 * or leaves it alone (`keep`). The pair's unique index decides, so a concurrent duplicate can
 * never become a second row. Returns the row as stored and whether it was new.
 */
export async function upsertRow(ft, w, onExisting) {
    const other = otherKey(w.cls);
    await ft.lock(w.cls, { user: USER_POINTER, [other]: USER_POINTER, ...w.fieldTypes, ...w.attrs.types });
    const data = { ...w.attrs.data, ...w.fields, user: userPointer(w.owner), [other]: userPointer(w.other) };
    const { rperm, wperm } = permsOfAcl(w.acl);
    const now = new Date().toISOString();
    const t = ident(w.cls);
    const conflict = onExisting === 'merge'
        ? sql `DO UPDATE SET data = ${t}.data || EXCLUDED.data, "updatedAt" = EXCLUDED."updatedAt"`
        : sql `DO UPDATE SET "objectId" = ${t}."objectId"`; // no-op update so RETURNING yields the row
    const rows = await ft.tx.query(sql `INSERT INTO ${t} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
    VALUES (${newObjectId()}, ${now}, ${now}, ${JSON.stringify(w.acl)}::jsonb, ${rperm}::text[], ${wperm}::text[], ${JSON.stringify(data)}::jsonb)
    ON CONFLICT (${pointerId('user')}, ${pointerId(other)}) ${conflict}
    RETURNING ${OBJECT_COLUMNS}, (xmax = 0) AS created`);
    const r = rows[0];
    return { row: encodeRow(r, { className: w.cls, withAcl: false }), created: r.created === true };
}
/** The row of a pair, or undefined. `forUpdate` locks it for the rest of the transaction. */
export async function findRow(ft, key, forUpdate = false) {
    const rows = await ft.tx.query(sql `SELECT ${OBJECT_COLUMNS} FROM ${ident(key.cls)} WHERE ${pairFilter(key)} ${forUpdate ? sql `FOR UPDATE` : sql ``}`);
    return rows[0] ? encodeRow(rows[0], { className: key.cls, withAcl: false }) : undefined;
}
/** Merges fields (and attributes) into an existing row; undefined when the pair has none. */
export async function updateRow(ft, key, fields, types) {
    if (Object.keys(types).length)
        await ft.lock(key.cls, types);
    const rows = await ft.tx.query(sql `UPDATE ${ident(key.cls)} SET data = data || ${JSON.stringify(fields)}::jsonb, "updatedAt" = ${new Date().toISOString()}
    WHERE ${pairFilter(key)} RETURNING ${OBJECT_COLUMNS}`);
    return rows[0] ? encodeRow(rows[0], { className: key.cls, withAcl: false }) : undefined;
}
/** Deletes the row of a pair; true when there was one. */
export async function deleteRow(ft, key) {
    const rows = await ft.tx.query(sql `DELETE FROM ${ident(key.cls)} WHERE ${pairFilter(key)} RETURNING "objectId"`);
    return rows.length > 0;
}
/** How many rows a user owns in a class (limits). */
export async function countOwned(ft, cls, owner) {
    const [{ n }] = await ft.tx.query(sql `SELECT count(*)::int AS n FROM ${ident(cls)} WHERE ${pointerId('user')} = ${owner}`);
    return n;
}
/** Throws quotaExceeded when `owner` already has `max` rows of `cls`. */
export async function checkLimit(ft, cls, owner, max, what) {
    if ((await countOwned(ft, cls, owner)) >= max)
        throw new ApiError('quotaExceeded', `A user may have at most ${max} ${what}.`);
}
//# sourceMappingURL=friend-rows.js.map