import { readersOf } from '../app-context.js';
import { checkAddFields, checkClassPermission, checkInnerQueries } from '../auth/class-permissions.js';
import { ApiError } from '../errors/api-error.js';
import { ident, sql } from '../sql/fragment.js';
import { permsOf } from './acl.js';
import { changedKeys, compileUpdate, typesOf } from './field-operations.js';
import { compileFilter } from './find-objects.js';
import { parseWriteBody } from './parse-write.js';
import { applyRelationChanges } from './relation-rows.js';
import { toIso } from './timestamps.js';
import { writeAclClause } from './write-acl.js';
import { whyNoWrite } from './write-outcome.js';
/**
 * Updates one object with a single UPDATE whose SET expression applies every __op to the
 * current row, so concurrent atomic operations never lose each other's effect. The write ACL
 * and the optional `where` are part of the same statement.
 */
export async function updateObject(ctx, className, objectId, body, opts) {
    const { db, classes } = ctx.app;
    const schema = await classes.find(className);
    if (!schema)
        throw new ApiError('classNotFound');
    await checkClassPermission(ctx, className, 'update');
    const parsed = parseWriteBody(body, 'update');
    await checkAddFields(ctx, schema, parsed.ops);
    const writers = await readersOf(ctx);
    const update = compileUpdate(parsed.ops);
    const types = typesOf(parsed.ops);
    const now = new Date().toISOString();
    let setAcl = sql ``;
    if (parsed.acl) {
        const { rperm, wperm } = permsOf(parsed.acl);
        setAcl = sql `, acl = ${JSON.stringify(parsed.acl)}::jsonb, rperm = ${rperm}::text[], wperm = ${wperm}::text[]`;
    }
    let where = sql `TRUE`;
    if (opts.where !== undefined) {
        const compiled = compileFilter(schema, opts.where, ctx, writers);
        await checkInnerQueries(ctx, compiled.cond);
        where = compiled.filter;
    }
    const statement = sql `UPDATE ${ident(className)} SET data = ${update.data}, "updatedAt" = ${now}::timestamptz${setAcl}
    WHERE "objectId" = ${objectId} AND ${writeAclClause(writers)} AND ${where}
    RETURNING "updatedAt", data`;
    const needsTx = update.relations.length > 0 || !classes.knowsAll(className, types);
    let rows;
    if (!needsTx) {
        rows = await db.query(statement);
    }
    else {
        const result = await db.transaction(async (tx) => {
            const s = await classes.lockFields(tx, className, types);
            const r = await tx.query(statement);
            if (r[0])
                await applyRelationChanges(tx, className, objectId, update.relations);
            return { r, s };
        });
        rows = result.r;
        if (rows[0])
            classes.publish(result.s);
    }
    if (!rows[0])
        throw await whyNoWrite(db, className, objectId, writers);
    const changed = {};
    for (const k of changedKeys(parsed.ops))
        if (Object.hasOwn(rows[0].data, k))
            changed[k] = rows[0].data[k];
    if (parsed.acl)
        changed.ACL = parsed.acl;
    return { updatedAt: toIso(rows[0].updatedAt), changed };
}
//# sourceMappingURL=update-object.js.map