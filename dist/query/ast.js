/**
 * The typed AST of a `where` condition. The parser (parse-where.ts) produces it from request JSON,
 * checking syntax only; the compilers (sql/compile-*.ts) resolve fields against the class schema.
 * Nodes are plain readonly data so tests can compare them with deepEqual.
 */
/** The condition that matches everything (an empty where). */
export const MATCH_ALL = { kind: 'and', conditions: [] };
/** The wire JSON of a query value, as it is stored in the `data` document. */
export function valueToJson(value) {
    switch (value.type) {
        case 'null':
            return null;
        case 'boolean':
        case 'number':
        case 'string':
        case 'json':
            return value.value;
        case 'date':
            return { __type: 'Date', iso: value.iso };
        case 'pointer':
            return { __type: 'Pointer', className: value.className, objectId: value.objectId };
        default:
            return assertNever(value);
    }
}
/** Exhaustiveness check for switches over the unions above. */
export function assertNever(value) {
    throw new Error(`unexpected AST node: ${JSON.stringify(value)}`);
}
//# sourceMappingURL=ast.js.map