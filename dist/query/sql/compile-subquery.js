/**
 * Conditions that read other rows: inner queries (`$inQuery`, `$notInQuery`, `$select`,
 * `$dontSelect`), `$relatedTo`, and conditions on Relation fields, which live in the join table
 * `_larder_relations`. Every inner query applies the reader's ACL (`rperm && readers`) and its
 * own LIMIT, so an inner query can never reveal or scan more than the caller could fetch
 * directly. An inner class the schema does not know matches nothing.
 */
import { ApiError } from '../../errors/api-error.js';
import { ident, join, raw, sql } from '../../sql/fragment.js';
import { unsupported } from './compile-compare.js';
import { compileOrder } from './compile-order.js';
import { jsonPath, jsonValue, resolveField, scalarExpr } from './field-expr.js';
import { anyValue, FALSE, TRUE } from './json-predicates.js';
/** The join table holding every relation. */
export const RELATIONS_TABLE = '_larder_relations';
/** The ACL filter: `rperm && $readers::text[]`, or TRUE for the master key (readers = null). */
export function aclClause(readers) {
    return readers === null ? raw('TRUE') : sql `rperm && ${[...readers]}::text[]`;
}
/**
 * `(SELECT <column> FROM "<Inner>" WHERE <where> AND <acl> LIMIT n)`, or undefined when the inner
 * class is unknown. ORDER BY is added only when the inner query has `order` or `skip`: without
 * them any n matches are as good, and sorting would cost a pass over all of them.
 */
function innerSelect(query, column, ctx, compile, key = ['objectId']) {
    const schema = ctx.schemaOf(query.className);
    if (!schema)
        return undefined;
    const inner = { ...ctx, schema };
    const where = compile(query.where, inner);
    const filters = where === TRUE ? [] : [where];
    if (ctx.readers !== null)
        filters.push(aclClause(ctx.readers));
    if (filters.length === 0)
        filters.push(TRUE);
    const order = query.order !== undefined || query.skip > 0 ? sql ` ORDER BY ${compileOrder(query.order, schema)}` : sql ``;
    const offset = query.skip > 0 ? sql ` OFFSET ${query.skip}::bigint` : sql ``;
    return sql `(SELECT ${column(resolveField(schema, key))} FROM ${ident(schema.name)} WHERE ${join(filters, ' AND ')}${order} LIMIT ${query.limit}::int${offset})`;
}
/** `$inQuery` (the caller negates for `$notInQuery`): the pointer's target matches the inner query. */
export function compileInQuery(target, query, ctx, compile) {
    const ids = innerSelect(query, () => sql `"objectId"`, ctx, compile);
    if (!ids)
        return FALSE;
    switch (target.kind) {
        case 'scalar': {
            if (target.type !== 'Pointer' || (target.className !== undefined && target.className !== query.className))
                return FALSE;
            const match = sql `${scalarExpr(target.name, 'Pointer')} IN ${ids}`;
            if (target.className !== undefined)
                return match;
            return sql `(${match} AND (${jsonPath([target.name])}->>'className') = ${query.className})`;
        }
        case 'array':
        case 'json': {
            const v = target.kind === 'json' ? jsonPath(target.path) : jsonPath([target.name]);
            return anyValue(v, (x) => sql `((${x}->>'__type') = 'Pointer' AND (${x}->>'className') = ${query.className} AND (${x}->>'objectId') IN ${ids})`);
        }
        case 'relation':
            return relationMembers(target, ctx, sql `target_class = ${query.className} AND target_id IN ${ids}`);
        case 'column':
            throw new ApiError('invalidQuery', `$inQuery and $notInQuery need a Pointer field; ${target.name} is not one.`);
    }
}
/** `$select` (the caller negates for `$dontSelect`): the field equals `key` of an inner result. */
export function compileSelect(target, query, key, ctx, compile) {
    const values = innerSelect(query, jsonValue, ctx, compile, key);
    if (!values)
        return FALSE;
    switch (target.kind) {
        case 'column':
        case 'scalar':
            return sql `${jsonValue(target)} IN ${values}`;
        case 'array':
        case 'json':
            return anyValue(jsonValue(target), (x) => sql `${x} IN ${values}`);
        case 'relation':
            throw unsupported('$select', target.name);
    }
}
/**
 * `$relatedTo`: this object is in the relation `key` of `owner`. The owner must be readable by
 * the caller (its ACL; unknown class or object: nothing), else the members of a relation would
 * reveal what the owner's ACL hides. The owner test is uncorrelated: PostgreSQL runs it once.
 */
export function compileRelatedTo(owner, key, ctx) {
    const members = sql `"objectId" IN (SELECT target_id FROM ${ident(RELATIONS_TABLE)} WHERE owner_class = ${owner.className} AND owner_id = ${owner.objectId} AND key = ${key} AND target_class = ${ctx.schema.name})`;
    if (ctx.readers === null)
        return members;
    const ownerSchema = ctx.schemaOf(owner.className);
    if (!ownerSchema)
        return FALSE;
    return sql `(EXISTS (SELECT 1 FROM ${ident(ownerSchema.name)} WHERE "objectId" = ${owner.objectId} AND ${aclClause(ctx.readers)}) AND ${members})`;
}
/** This object has a member of its Relation field `target` that satisfies `filter`. */
function relationMembers(target, ctx, filter) {
    return sql `"objectId" IN (SELECT owner_id FROM ${ident(RELATIONS_TABLE)} WHERE owner_class = ${ctx.schema.name} AND key = ${target.name} AND ${filter})`;
}
function pointersOf(values) {
    return values.flatMap((v) => (v.type === 'pointer' ? [{ className: v.className, objectId: v.objectId }] : []));
}
/**
 * Equality and `$in` on a Relation field (e.g. roles whose `users` holds a user): members come
 * from the join table. Only pointers can be members, so other values match nothing.
 */
export function compileRelationIn(target, values, ctx) {
    const pointers = pointersOf(values);
    if (pointers.length === 0)
        return FALSE;
    if (pointers.length === 1) {
        return relationMembers(target, ctx, sql `target_class = ${pointers[0].className} AND target_id = ${pointers[0].objectId}`);
    }
    const classes = pointers.map((p) => p.className);
    const ids = pointers.map((p) => p.objectId);
    return relationMembers(target, ctx, sql `(target_class, target_id) IN (SELECT * FROM unnest(${classes}::text[], ${ids}::text[]))`);
}
//# sourceMappingURL=compile-subquery.js.map