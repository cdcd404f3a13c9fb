import { sql } from '../../../sql/fragment.js';
import { ensureFriendTables } from './friend-tables.js';
/**
 * Runs a friendship write in ONE transaction (no half-made friendships) holding a transaction
 * advisory lock per involved user, taken in sorted order so two writers never deadlock. The
 * locks serialise everything that touches one user's friendships: concurrent accepts or follows
 * of the same pair cannot both pass their checks, and limits (5,000 followees, 100 blocked) are
 * counted without a race. The unique pair indexes stay as the last line of defence.
 */
export async function friendTransaction(app, userIds, work) {
    await ensureFriendTables(app);
    const schemas = [];
    const result = await app.db.transaction(async (tx) => {
        for (const id of [...new Set(userIds)].sort()) {
            await tx.query(sql `SELECT pg_advisory_xact_lock(hashtext(${'larder.friend.' + id}))`);
        }
        const ft = {
            tx,
            app,
            async lock(cls, types) {
                if (app.classes.knowsAll(cls, types))
                    return;
                schemas.push(await app.classes.lockFields(tx, cls, types));
            },
        };
        return work(ft);
    });
    for (const s of schemas)
        app.classes.publish(s);
    return result;
}
//# sourceMappingURL=friend-tx.js.map