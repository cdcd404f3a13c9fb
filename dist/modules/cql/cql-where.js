function isOperatorObject(v) {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
        return false;
    const keys = Object.keys(v);
    return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}
/** The value of `key` in `acc` combined with `v`, or undefined when the two cannot be merged. */
function mergedMember(acc, key, v) {
    if (!Object.hasOwn(acc, key))
        return v;
    if (key.startsWith('$'))
        return undefined;
    const have = acc[key];
    if (!isOperatorObject(have) || !isOperatorObject(v))
        return undefined;
    if (Object.keys(v).some((op) => Object.hasOwn(have, op)))
        return undefined;
    return { ...have, ...v };
}
function tryMerge(acc, part) {
    const merged = {};
    for (const [k, v] of Object.entries(part)) {
        const m = mergedMember(acc, k, v);
        if (m === undefined)
            return false;
        merged[k] = m;
    }
    Object.assign(acc, merged);
    return true;
}
/** The conjunction of where fragments. */
export function andOf(parts) {
    if (parts.length === 1)
        return parts[0];
    const acc = {};
    const rest = [];
    for (const p of parts)
        if (!tryMerge(acc, p))
            rest.push(p);
    if (rest.length)
        acc.$and = Object.hasOwn(acc, '$and') ? [...acc.$and, ...rest] : rest;
    return acc;
}
/** The disjunction of where fragments. */
export function orOf(parts) {
    return parts.length === 1 ? parts[0] : { $or: [...parts] };
}
/** `{field: value}` with the field path written as the where language writes it (`a.b`). */
export function onField(field, value) {
    return { [field]: value };
}
//# sourceMappingURL=cql-where.js.map