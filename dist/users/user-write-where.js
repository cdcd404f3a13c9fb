import { readersOf } from '../app-context.js';
import { checkInnerQueries } from '../auth/class-permissions.js';
import { checkHiddenFields } from '../auth/hidden-field-guard.js';
import { parseWhere } from '../query/parse-where.js';
import { compileWhere } from '../query/sql/compile-where.js';
/** The SQL condition of a user write's `where` (no ACL on the user row; see the file comment). */
export async function compileUserWriteWhere(ctx, schema, where) {
    const readers = await readersOf(ctx);
    const cond = parseWhere(where ?? {});
    if (readers !== null)
        checkHiddenFields(schema.name, cond);
    await checkInnerQueries(ctx, cond);
    return compileWhere(cond, { schema, schemaOf: (n) => ctx.app.classes.cached(n), readers }).condition;
}
//# sourceMappingURL=user-write-where.js.map