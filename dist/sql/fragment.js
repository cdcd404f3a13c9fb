/**
 * SQL built from fragments. Values interpolated into the `sql` tag always become bound
 * parameters; the only ways to put text into a statement are the tag's literal parts, `ident()`
 * (a checked, quoted identifier) and `jsonKey()` (a checked field name as a string literal).
 * A plain string can therefore never become SQL text by accident.
 */
export class Sql {
    parts;
    values;
    /** @internal parts and values alternate: parts.length === values.length + 1 */
    constructor(parts, values) {
        this.parts = parts;
        this.values = values;
    }
    /** Renders to text with $1..$n placeholders, numbering from `offset`. */
    toQuery() {
        let text = this.parts[0];
        for (let i = 0; i < this.values.length; i++)
            text += `$${i + 1}` + this.parts[i + 1];
        return { text, values: [...this.values] };
    }
}
/** Tagged template: `sql\`select * from ${ident(t)} where a = ${value}\``. */
export function sql(strings, ...args) {
    const parts = [strings[0]];
    const values = [];
    for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        if (arg instanceof Sql) {
            parts[parts.length - 1] += arg.parts[0];
            for (let j = 0; j < arg.values.length; j++) {
                values.push(arg.values[j]);
                parts.push(arg.parts[j + 1]);
            }
            parts[parts.length - 1] += strings[i + 1];
        }
        else {
            values.push(arg);
            parts.push(strings[i + 1]);
        }
    }
    return new Sql(parts, values);
}
/** Joins fragments with a separator (a literal piece of SQL). */
export function join(items, separator) {
    if (items.length === 0)
        return empty;
    const parts = [...items[0].parts];
    const values = [...items[0].values];
    for (let i = 1; i < items.length; i++) {
        const it = items[i];
        parts[parts.length - 1] += separator + it.parts[0];
        for (let j = 0; j < it.values.length; j++) {
            values.push(it.values[j]);
            parts.push(it.parts[j + 1]);
        }
    }
    return new Sql(parts, values);
}
/** An empty fragment. */
export const empty = new Sql([''], []);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const SAFE_KEY = /^[A-Za-z0-9_]{1,128}$/;
/** A quoted identifier (table, column, schema). Throws on anything but a plain name. */
export function ident(name) {
    if (!IDENT.test(name))
        throw new Error(`unsafe SQL identifier: ${JSON.stringify(name)}`);
    return new Sql([`"${name}"`], []);
}
/**
 * A validated JSON key as a SQL string literal, e.g. `'score'`. Literals (not parameters) are used
 * for field names so that expression indexes like `((data->>'score')::numeric)` match the
 * compiled query text.
 */
export function jsonKey(name) {
    if (!SAFE_KEY.test(name))
        throw new Error(`unsafe JSON key: ${JSON.stringify(name)}`);
    return new Sql([`'${name}'`], []);
}
/** True when `name` can be used with jsonKey(). */
export function isSafeKey(name) {
    return SAFE_KEY.test(name);
}
/** Trusted SQL text written in this code base (never request data). */
export function raw(text) {
    return new Sql([text], []);
}
/** Whole statements that are constants of this code base (migrations). Never request data. */
export function staticText(text) {
    return new Sql([text], []);
}
//# sourceMappingURL=fragment.js.map