/**
 * The `where` clause of CQL, by recursive descent:
 *
 *   or        := and ('or' and)*
 *   and       := primary ('and' primary)*            -- 'and' binds tighter than 'or'
 *   primary   := '(' or ')' | 'related' key 'to' value | 'size' '(' field ')' '=' n | field rest
 *   rest      := op (value | '(' subquery ')') | ['not'] 'like' s | ['not'] 'regexp' s
 *              | ['not'] 'in' '(' (subquery | values) ')' | 'is' ['not'] 'exists'
 *              | 'all' '(' values ')' | 'near' point ['min' d [unit]] ['max' d [unit]]
 *              | 'within' point 'and' point
 *
 * Each predicate becomes a fragment of the where language (cql-where.ts combines them), so the
 * statement ends up in the same query tree, checks and SQL as a REST query.
 */
import type { JsonObject, JsonValue } from '../../module-api/reads.ts';
import type { Cursor } from './cql-cursor.ts';
import { geoPointJson, isFunctionCall, likeToRegex, parseNumber, parseNumberOrPlaceholder, parseString, parseValue } from './cql-values.ts';
import { andOf, onField, orOf } from './cql-where.ts';

/** Parses a sub-select (after its opening parenthesis); supplied by cql-parser.ts to avoid a cycle. */
export type SubSelectParser = (c: Cursor) => { query: JsonObject; key?: string };

const COMPARE: Readonly<Record<string, string>> = { '!=': '$ne', '<>': '$ne', '<': '$lt', '<=': '$lte', '>': '$gt', '>=': '$gte' };
const UNITS: Readonly<Record<string, string>> = { km: 'Kilometers', kilometers: 'Kilometers', miles: 'Miles', mile: 'Miles', radians: 'Radians' };

/** Most nested parentheses in one where (the where parser has its own depth limit on top). */
const MAX_PARENS = 32;

/** A field name, dotted for nested keys (`address.city`); backquotes allow a keyword as a name. */
export function parseField(c: Cursor): string {
  const parts: string[] = [];
  do {
    const t = c.peek();
    if (t.kind !== 'ident') c.fail('expected a field name');
    c.next();
    parts.push(t.text);
  } while (c.acceptPunct('.'));
  return parts.join('.');
}

/** A GeoPoint: `[lng, lat]`, `geopoint(lng, lat)`, or a placeholder holding GeoPoint JSON. */
function parsePoint(c: Cursor): JsonValue {
  if (c.peek().kind === 'placeholder') return c.placeholder();
  if (isFunctionCall(c)) return parseValue(c);
  c.expectPunct('[');
  const longitude = parseNumberOrPlaceholder(c, 'a longitude');
  c.expectPunct(',');
  const latitude = parseNumberOrPlaceholder(c, 'a latitude');
  c.expectPunct(']');
  return geoPointJson(longitude, latitude);
}

/** `min|max d [km|miles|radians]` after near; radians when no unit is written (the guide's default). */
function parseDistance(c: Cursor, bound: 'min' | 'max', ops: Record<string, JsonValue>): void {
  const d = parseNumberOrPlaceholder(c, `the ${bound} distance`);
  const t = c.peek();
  const unit = t.kind === 'ident' && !t.quoted ? UNITS[t.text.toLowerCase()] : undefined;
  if (unit) c.next();
  ops[`$${bound}DistanceIn${unit ?? 'Radians'}`] = d;
}

function parseValueList(c: Cursor): JsonValue[] {
  c.expectPunct('(');
  const values: JsonValue[] = [];
  if (!c.isPunct(')')) {
    do values.push(parseValue(c));
    while (c.acceptPunct(','));
  }
  c.expectPunct(')');
  return values;
}

/** The parser of one where clause; holds the sub-select parser and the nesting depth. */
export class ConditionParser {
  private depth = 0;

  constructor(
    private readonly c: Cursor,
    private readonly subSelect: SubSelectParser,
  ) {}

  /** or := and ('or' and)* */
  parseOr(): JsonObject {
    const parts = [this.parseAnd()];
    while (this.c.acceptKeyword('or')) parts.push(this.parseAnd());
    return orOf(parts);
  }

  private parseAnd(): JsonObject {
    const parts = [this.parsePrimary()];
    while (this.c.acceptKeyword('and')) parts.push(this.parsePrimary());
    return andOf(parts);
  }

  private parsePrimary(): JsonObject {
    const c = this.c;
    if (c.acceptPunct('(')) {
      if (++this.depth > MAX_PARENS) c.fail(`at most ${MAX_PARENS} nested parentheses are allowed`);
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
      if (!c.acceptPunct('=')) c.fail("size() can only be compared with '='");
      const t = c.peek();
      const n = t.kind === 'placeholder' ? c.placeholder() : parseNumber(c, 'an array size');
      return onField(field, { $size: n });
    }
    return this.parseRest(parseField(c));
  }

  private parseRest(field: string): JsonObject {
    const c = this.c;
    if (c.acceptPunct('=')) return this.parseEqual(field, false);
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
    if (c.acceptKeyword('like')) return this.regex(field, negated, { $regex: likeToRegex(parseString(c, 'a like pattern')), $options: 's' });
    if (c.acceptKeyword('regexp')) return this.regex(field, negated, { $regex: parseString(c, 'a regular expression') });
    if (c.acceptKeyword('in')) return this.parseIn(field, negated);
    if (negated) c.fail("expected 'like', 'regexp' or 'in' after 'not'");
    if (c.acceptKeyword('is')) {
      const not = c.acceptKeyword('not');
      c.expectKeyword('exists');
      return onField(field, { $exists: !not });
    }
    if (c.acceptKeyword('all')) return onField(field, { $all: parseValueList(c) });
    if (c.acceptKeyword('near')) {
      const ops: Record<string, JsonValue> = { $nearSphere: parsePoint(c) };
      if (c.acceptKeyword('min')) parseDistance(c, 'min', ops);
      if (c.acceptKeyword('max')) parseDistance(c, 'max', ops);
      return onField(field, ops);
    }
    if (c.acceptKeyword('within')) {
      const southwest = parsePoint(c);
      c.expectKeyword('and');
      return onField(field, { $within: { $box: [southwest, parsePoint(c)] } });
    }
    return c.fail(`expected an operator after the field ${field}`);
  }

  private regex(field: string, negated: boolean, re: JsonObject): JsonObject {
    return onField(field, negated ? { $not: re } : re);
  }

  /** `= value`, `= (select ...)`, and their negations. */
  private parseEqual(field: string, negated: boolean): JsonObject {
    const c = this.c;
    if (c.isPunct('(') && c.isKeyword('select', 1)) {
      c.next();
      return this.subQueryCondition(field, negated);
    }
    const at = c.peek();
    const v = parseValue(c);
    if (negated) return onField(field, { $ne: v });
    // A plain object with `$` keys would be read as operators by the where language.
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'))) {
      c.fail("a value compared with '=' may not have keys starting with '$'", at);
    }
    return onField(field, v);
  }

  private parseIn(field: string, negated: boolean): JsonObject {
    const c = this.c;
    if (c.isPunct('(') && c.isKeyword('select', 1)) {
      c.next();
      return this.subQueryCondition(field, negated);
    }
    return onField(field, { [negated ? '$nin' : '$in']: parseValueList(c) });
  }

  /** After `(`: `select * from ...` is `$inQuery`, `select key from ...` is `$select`. */
  private subQueryCondition(field: string, negated: boolean): JsonObject {
    const sub = this.subSelect(this.c);
    this.c.expectPunct(')');
    if (sub.key === undefined) return onField(field, { [negated ? '$notInQuery' : '$inQuery']: sub.query });
    return onField(field, { [negated ? '$dontSelect' : '$select']: { query: sub.query, key: sub.key } });
  }
}
