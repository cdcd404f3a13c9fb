/** Columns every class table has; everything else lives in the `data` jsonb document. */
export const RESERVED_COLUMNS = ['objectId', 'createdAt', 'updatedAt', 'ACL'];
/** The system classes (names starting with "_") that clients may address. */
export const BUILT_IN_CLASSES = [
    '_User',
    '_Role',
    '_File',
    '_Installation',
    '_Followee',
    '_Follower',
    '_FriendshipRequest',
    '_Conversation',
];
/** Built-in classes whose unknown objectId is 400/211 rather than 200 {}. */
export function isBuiltInClass(name) {
    return BUILT_IN_CLASSES.includes(name);
}
/**
 * The locked type of a field, or undefined. An own-property lookup: `fields` is parsed JSON, so
 * `fields.toString` would otherwise find Object.prototype's function (issue 12, built-in names).
 */
export function fieldOf(schema, name) {
    return schema && Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
}
//# sourceMappingURL=types.js.map