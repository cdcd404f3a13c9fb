import { geoPointJson, isFunctionCall, likeToRegex, parseNumber, parseNumberOrPlaceholder, parseString, parseValue } from './cql-values.js';
import { andOf, onField, orOf } from './cql-where.js';
const COMPARE = { '!=': '$ne', '<>': '$ne', '<': '$lt', '<=': '$lte', '>': '$gt', '>=': '$gte' };
const UNITS = { km: 'Kilometers', kilometers: 'Kilometers', miles: 'Miles', mile: 'Miles', radians: 'Radians' };
/** Most nested parentheses in one where (the where parser has its own depth limit on top). */
const MAX_PARENS = 32;
/** A field name, dotted for nested keys (`address.city`); backquotes allow a keyword as a name. */
export function parseField(c) {
    const parts = [];
    do {
        const t = c.peek();
        if (t.kind !== 'ident')
            c.fail('expected a field name');
        c.next();
        parts.push(t.text);
    } while (c.acceptPunct('.'));
    return parts.join('.');
}
/** A GeoPoint: `[lng, lat]`, `geopoint(lng, lat)`, or a placeholder holding GeoPoint JSON. */
function parsePoint(c) {
    if (c.peek().kind === 'placeholder')
        return c.placeholder();
    if (isFunctionCall(c))
        return parseValue(c);
    c.expectPunct('[');
    const longitude = parseNumberOrPlaceholder(c, 'a longitude');
    c.expectPunct(',');
    const latitude = parseNumberOrPlaceholder(c, 'a latitude');
    c.expectPunct(']');
    return geoPointJson(longitude, latitude);
}
/** `min|max d [km|miles|radians]` after near; radians when no unit is written (the guide's default). */
function parseDistance(c, bound, ops) {
    const d = parseNumberOrPlaceholder(c, `the ${bound} distance`);
    const t = c.peek();
    const unit = t.kind === 'ident' && !t.quoted ? UNITS[t.text.toLowerCase()] : undefined;
    if (unit)
        c.next();
    ops[`$${bound}DistanceIn${unit ?? 'Radians'}`] = d;
}
function parseValueList(c) {
    c.expectPunct('(');
    const values = [];
    if (!c.isPunct(')')) {
        do
            values.push(parseValue(c));
        while (c.acceptPunct(','));
    }
    c.expectPunct(')');
    return values;
}
/** The parser of one where clause; holds the sub-select parser and the nesting depth. */
export class ConditionParser {
    c;
    subSelect;
    depth = 0;
    constructor(c, subSelect) {
        this.c = c;
        this.subSelect = subSelect;
    }
    /** or := and ('or' and)* */
    parseOr() {
        const parts = [this.parseAnd()];
        while (this.c.acceptKeyword('or'))
            parts.push(this.parseAnd());
        return orOf(parts);
    }
    parseAnd() {
        const parts = [this.parsePrimary()];
        while (this.c.acceptKeyword('and'))
            parts.push(this.parsePrimary());
        return andOf(parts);
    }
    parsePrimary() {
        const c = this.c;
        if (c.acceptPunct('(')) {
            if (++this.depth > MAX_PARENS)
                c.fail(`at most ${MAX_PARENS} nested parentheses are allowed`);
            const inner = this.parseOr();
            c.expectPunct(')');
            this.depth -= 1;
            return inner;
        }
        // `related` and `size(` are keywords only where a field name cannot be meant.
        if (c.isKeyword('related') && c.peek(1).kind === 'ident' && c.peek(2).kind === 'ident') {
            c.next();
            const key = parseField(c);
            c.expectKeyword('to');
            return { $relatedTo: { object: parseValue(c), key } };
        }
        if (c.isKeyword('size') && c.isPunct('(', 1)) {
            c.next();
            c.expectPunct('(');
            const field = parseField(c);
            c.expectPunct(')');
            if (!c.acceptPunct('='))
                c.fail("size() can only be compared with '='");
            const t = c.peek();
            const n = t.kind === 'placeholder' ? c.placeholder() : parseNumber(c, 'an array size');
            return onField(field, { $size: n });
        }
        return this.parseRest(parseField(c));
    }
    parseRest(field) {
        const c = this.c;
        if (c.acceptPunct('='))
            return this.parseEqual(field, false);
        if (c.isPunct('!=') || c.isPunct('<>')) {
            c.next();
            return this.parseEqual(field, true);
        }
        const op = c.peek().kind === 'punct' ? COMPARE[c.peek().text] : undefined;
        if (op) {
            c.next();
            return onField(field, { [op]: parseValue(c) });
        }
        const negated = c.acceptKeyword('not');
        if (c.acceptKeyword('like'))
            return this.regex(field, negated, { $regex: likeToRegex(parseString(c, 'a like pattern')), $options: 's' });
        if (c.acceptKeyword('regexp'))
            return this.regex(field, negated, { $regex: parseString(c, 'a regular expression') });
        if (c.acceptKeyword('in'))
            return this.parseIn(field, negated);
        if (negated)
            c.fail("expected 'like', 'regexp' or 'in' after 'not'");
        if (c.acceptKeyword('is')) {
            const not = c.acceptKeyword('not');
            c.expectKeyword('exists');
            return onField(field, { $exists: !not });
        }
        if (c.acceptKeyword('all'))
            return onField(field, { $all: parseValueList(c) });
        if (c.acceptKeyword('near')) {
            const ops = { $nearSphere: parsePoint(c) };
            if (c.acceptKeyword('min'))
                parseDistance(c, 'min', ops);
            if (c.acceptKeyword('max'))
                parseDistance(c, 'max', ops);
            return onField(field, ops);
        }
        if (c.acceptKeyword('within')) {
            const southwest = parsePoint(c);
            c.expectKeyword('and');
            return onField(field, { $within: { $box: [southwest, parsePoint(c)] } });
        }
        return c.fail(`expected an operator after the field ${field}`);
    }
    regex(field, negated, re) {
        return onField(field, negated ? { $not: re } : re);
    }
    /** `= value`, `= (select ...)`, and their negations. */
    parseEqual(field, negated) {
        const c = this.c;
        if (c.isPunct('(') && c.isKeyword('select', 1)) {
            c.next();
            return this.subQueryCondition(field, negated);
        }
        const at = c.peek();
        const v = parseValue(c);
        if (negated)
            return onField(field, { $ne: v });
        // A plain object with `$` keys would be read as operators by the where language.
        if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'))) {
            c.fail("a value compared with '=' may not have keys starting with '$'", at);
        }
        return onField(field, v);
    }
    parseIn(field, negated) {
        const c = this.c;
        if (c.isPunct('(') && c.isKeyword('select', 1)) {
            c.next();
            return this.subQueryCondition(field, negated);
        }
        return onField(field, { [negated ? '$nin' : '$in']: parseValueList(c) });
    }
    /** After `(`: `select * from ...` is `$inQuery`, `select key from ...` is `$select`. */
    subQueryCondition(field, negated) {
        const sub = this.subSelect(this.c);
        this.c.expectPunct(')');
        if (sub.key === undefined)
            return onField(field, { [negated ? '$notInQuery' : '$inQuery']: sub.query });
        return onField(field, { [negated ? '$dontSelect' : '$select']: { query: sub.query, key: sub.key } });
    }
}
//# sourceMappingURL=cql-conditions.js.map