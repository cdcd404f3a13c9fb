import { checkAddFields, checkClassPermission } from '../auth/class-permissions.js';
import { defaultAclFor } from '../auth/default-acl.js';
import { ApiError } from '../errors/api-error.js';
import { ident, sql } from '../sql/fragment.js';
import { prepared } from '../storage/prepared-statements.js';
import { permsOf } from './acl.js';
import { applyOnCreate, typesOf } from './field-operations.js';
import { newObjectId } from './object-id.js';
import { parseWriteBody } from './parse-write.js';
import { applyRelationChanges } from './relation-rows.js';
import { addRelationMarkers } from './relation-fields.js';
import { expandFiles } from './expand-files.js';
/** Checks the class permission to create and gathers what every create in the class needs. */
export async function createClassContext(ctx, className) {
    await checkClassPermission(ctx, className, 'create');
    let defaults;
    return {
        className,
        schema: await ctx.app.classes.find(className),
        defaultAcl: () => (defaults ??= defaultAclFor(ctx, className).then((acl) => ({ acl, ...permsOf(acl) }))),
    };
}
/** Runs the per-object checks of a create (add_fields, body) and builds the row. */
export async function prepareInClass(ctx, cls, body, now) {
    const parsed = parseWriteBody(body, 'create');
    await checkAddFields(ctx, cls.schema, parsed.ops);
    // Objects without an ACL share one default ACL object (and its perms): insertPrepared sends
    // a shared ACL once for all rows.
    const { acl, rperm, wperm } = parsed.acl ? { acl: parsed.acl, ...permsOf(parsed.acl) } : await cls.defaultAcl();
    const { data, relations } = applyOnCreate(parsed.ops);
    return { objectId: newObjectId(), now, acl, rperm, wperm, data, relations, types: typesOf(parsed.ops) };
}
/** Runs every check of a create (class permission, add_fields, body) and builds the row. */
export async function prepareCreate(ctx, className, body) {
    return prepareInClass(ctx, await createClassContext(ctx, className), body, new Date().toISOString());
}
/** The INSERT of prepared rows: the cheapest form for their shape. */
function insertStatement(className, rows) {
    const table = ident(className);
    const columns = sql `("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)`;
    if (rows.length === 1) {
        // One object (a plain create): a plain VALUES row, the cheapest statement to plan.
        const [r] = rows;
        return prepared(sql `INSERT INTO ${table} ${columns}
      VALUES (${r.objectId}, ${r.now}::timestamptz, ${r.now}::timestamptz, ${JSON.stringify(r.acl)}::jsonb, ${r.rperm}::text[], ${r.wperm}::text[], ${JSON.stringify(r.data)}::jsonb)`);
    }
    if (rows.every((r) => r.acl === rows[0].acl)) {
        // The usual batch (every object has the same ACL object, e.g. the default): the ACL goes
        // once, and the documents as one JSON array (no array-literal escaping of each document).
        return sql `INSERT INTO ${table} ${columns}
      SELECT t.id, t.ts, t.ts, ${JSON.stringify(rows[0].acl)}::jsonb, ${rows[0].rperm}::text[], ${rows[0].wperm}::text[], d.doc
      FROM unnest(${rows.map((r) => r.objectId)}::text[], ${rows.map((r) => r.now)}::timestamptz[]) WITH ORDINALITY AS t(id, ts, i)
        JOIN jsonb_array_elements(${JSON.stringify(rows.map((r) => r.data))}::jsonb) WITH ORDINALITY AS d(doc, i) USING (i)`;
    }
    return sql `INSERT INTO ${table} ${columns}
    SELECT id, ts, ts, acl, string_to_array(rp, chr(31)), string_to_array(wp, chr(31)), data
    FROM unnest(${rows.map((r) => r.objectId)}::text[], ${rows.map((r) => r.now)}::timestamptz[], ${rows.map((r) => JSON.stringify(r.acl))}::jsonb[],
      ${rows.map((r) => r.rperm.join('\x1f'))}::text[], ${rows.map((r) => r.wperm.join('\x1f'))}::text[], ${rows.map((r) => JSON.stringify(r.data))}::jsonb[])
      AS t(id, ts, acl, rp, wp, data)`;
}
/**
 * Inserts prepared creates of one class in ONE statement (batches of creates become one
 * multi-row insert). The class and new fields are registered in the same transaction as the
 * insert, so a failed write leaves no half-made schema; when the class and every field are
 * already known and there are no relations, the insert needs no transaction.
 */
export async function insertPrepared(ctx, className, rows) {
    if (!rows.length)
        return;
    const { db, classes } = ctx.app;
    const types = {};
    for (const r of rows)
        Object.assign(types, r.types);
    const insert = insertStatement(className, rows);
    const relations = rows.some((r) => r.relations.length);
    const known = classes.cached(className) && rows.every((r) => classes.knowsAll(className, r.types));
    if (known && !relations) {
        await db.query(insert);
        return;
    }
    const schema = await db.transaction(async (tx) => {
        await classes.ensureClass(tx, className);
        // Each object's own types are checked; a conflict between two new objects is caught too.
        let s = await classes.lockFields(tx, className, rows[0].types);
        for (const r of rows.slice(1))
            s = await classes.lockFields(tx, className, r.types);
        await tx.query(insert);
        for (const r of rows)
            await applyRelationChanges(tx, className, r.objectId, r.relations);
        return s;
    });
    classes.publish(schema);
}
/** The created object in wire form, as a fetchWhenSave response shows it. */
export function createdObject(p) {
    return { ...p.data, objectId: p.objectId, createdAt: p.now, updatedAt: p.now };
}
/** Creates one object. */
export async function createObject(ctx, className, body) {
    const prepared = await prepareCreate(ctx, className, body);
    await insertPrepared(ctx, className, [prepared]);
    // The full object is built only when asked for (fetchWhenSave); most creates answer without it.
    let object;
    return {
        objectId: prepared.objectId,
        createdAt: prepared.now,
        get object() {
            return (object ??= createdObject(prepared));
        },
    };
}
/**
 * A freshly written object for a fetchWhenSave / new=true answer: file references expanded and
 * the class's Relation markers added, as a GET of the object would show them.
 */
export async function withFiles(ctx, className, object) {
    addRelationMarkers(object, ctx.app.classes.cached(className));
    await expandFiles(ctx.app.db, [object]);
    return object;
}
/** Refuses writes to a class name that cannot be created by clients. */
export function assertWritableClass(className) {
    if (className === '_File')
        throw new ApiError('forbidden', 'Files are created through /1.1/files.');
}
//# sourceMappingURL=create-object.js.map