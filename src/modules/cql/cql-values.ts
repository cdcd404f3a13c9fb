/**
 * CQL values: literals (strings, numbers, true/false/null), JSON literals with bare or quoted
 * keys (`{className:'Post', objectId:'x', __type:'Pointer'}`), `?` placeholders, and the
 * built-in functions of the CQL guide. Each becomes the wire JSON the `where` language takes,
 * so the where parser validates it exactly as it validates a REST query's values.
 */
import type { JsonObject, JsonValue } from '../../module-api/reads.ts';
import type { Cursor } from './cql-cursor.ts';

/** Most nested JSON levels in one literal (the where parser has its own, larger, value limit). */
const MAX_LITERAL_DEPTH = 16;

/** A number token, with an optional leading minus. */
export function parseNumber(c: Cursor, what = 'a number'): number {
  const negative = c.acceptPunct('-');
  const t = c.peek();
  if (t.kind !== 'number') return c.fail(`expected ${what}`);
  c.next();
  const n = Number(t.text);
  if (!Number.isFinite(n)) c.fail(`${what} out of range`, t);
  return negative ? -n : n;
}

/** A string literal (or a placeholder whose value is a string). */
export function parseString(c: Cursor, what: string): string {
  const t = c.peek();
  if (t.kind === 'placeholder') {
    const v = c.placeholder();
    if (typeof v !== 'string') c.fail(`the value of this placeholder must be a string (${what})`, t);
    return v;
  }
  if (t.kind !== 'string') return c.fail(`expected ${what} in quotes`);
  c.next();
  return t.text;
}

/** A number literal or placeholder (function arguments, geo coordinates, distances). */
export function parseNumberOrPlaceholder(c: Cursor, what: string): number {
  const t = c.peek();
  if (t.kind !== 'placeholder') return parseNumber(c, what);
  const v = c.placeholder();
  if (typeof v !== 'number' || !Number.isFinite(v)) c.fail(`the value of this placeholder must be a number (${what})`, t);
  return v;
}

/** `geopoint(lng, lat)` after its name, and `[lng, lat]`: both give longitude first. */
export function geoPointJson(longitude: number, latitude: number): JsonObject {
  return { __type: 'GeoPoint', latitude, longitude };
}

/** The built-in functions, called with the cursor after the opening parenthesis. */
const FUNCTIONS: Readonly<Record<string, (c: Cursor) => JsonValue>> = {
  date: (c) => ({ __type: 'Date', iso: parseString(c, "an ISO date such as '2011-08-20T02:06:57.931Z'") }),
  pointer: (c) => {
    const className = parseString(c, 'a class name');
    c.expectPunct(',');
    return { __type: 'Pointer', className, objectId: parseString(c, 'an objectId') };
  },
  geopoint: (c) => {
    const longitude = parseNumberOrPlaceholder(c, 'a longitude');
    c.expectPunct(',');
    return geoPointJson(longitude, parseNumberOrPlaceholder(c, 'a latitude'));
  },
  file: (c) => ({ __type: 'File', id: parseString(c, 'the objectId of a file') }),
  base64: (c) => ({ __type: 'Bytes', base64: parseString(c, 'base64 text') }),
  current_timestamp: () => ({ __type: 'Date', iso: new Date().toISOString() }),
};

/** True when the current token starts a function call `name(`. */
export function isFunctionCall(c: Cursor): boolean {
  const t = c.peek();
  return t.kind === 'ident' && !t.quoted && Object.hasOwn(FUNCTIONS, t.text.toLowerCase()) && c.isPunct('(', 1);
}

function parseObject(c: Cursor, depth: number): JsonObject {
  const out: Record<string, JsonValue> = {};
  if (c.acceptPunct('}')) return out;
  do {
    const k = c.peek();
    if (k.kind !== 'ident' && k.kind !== 'string') c.fail('expected a key of the JSON object');
    c.next();
    c.expectPunct(':');
    // defineProperty: a key named __proto__ stays an own member instead of changing the prototype.
    Object.defineProperty(out, k.text, { value: parseValue(c, depth + 1), enumerable: true, writable: true, configurable: true });
  } while (c.acceptPunct(','));
  c.expectPunct('}');
  return out;
}

function parseArray(c: Cursor, depth: number): JsonValue[] {
  const out: JsonValue[] = [];
  if (c.acceptPunct(']')) return out;
  do out.push(parseValue(c, depth + 1));
  while (c.acceptPunct(','));
  c.expectPunct(']');
  return out;
}

/** Any value on the right of an operator, in a list, or inside a JSON literal. */
export function parseValue(c: Cursor, depth = 0): JsonValue {
  if (depth > MAX_LITERAL_DEPTH) c.fail(`values may nest at most ${MAX_LITERAL_DEPTH} levels`);
  const t = c.peek();
  if (t.kind === 'placeholder') return c.placeholder();
  if (t.kind === 'string') {
    c.next();
    return t.text;
  }
  if (t.kind === 'number' || (t.kind === 'punct' && t.text === '-')) return parseNumber(c);
  if (c.acceptPunct('{')) return parseObject(c, depth);
  if (c.acceptPunct('[')) return parseArray(c, depth);
  if (isFunctionCall(c)) {
    const fn = FUNCTIONS[c.next().text.toLowerCase()];
    c.expectPunct('(');
    const v = fn(c);
    c.expectPunct(')');
    return v;
  }
  if (c.acceptKeyword('true')) return true;
  if (c.acceptKeyword('false')) return false;
  if (c.acceptKeyword('null')) return null;
  return c.fail('expected a value');
}

/**
 * A `like` pattern as an anchored regular expression: `%` is any run of characters, everything
 * else matches itself (regex metacharacters are escaped), as the CQL guide defines `like` in
 * terms of `regexp`.
 */
export function likeToRegex(pattern: string): string {
  const parts = pattern.split('%').map((s) => s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'));
  return `^${parts.join('.*')}$`;
}
