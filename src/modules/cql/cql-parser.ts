/**
 * CQL statements (LeanCloud's Cloud Query Language, `GET /1.1/cloudQuery`), by recursive descent:
 *
 *   statement := 'select' items 'from' class ['where' or] tail
 *   items     := item (',' item)*
 *   item      := '*' | field | 'include' field | 'count' '(' ('*' | 'objectId') ')'
 *   tail      := [limit] [order] | [order] [limit]      -- either order, each at most once
 *   limit     := 'limit' n | 'limit' skip ',' n          -- numbers or placeholders
 *   order     := 'order' 'by' ['+'|'-'] field (',' ['+'|'-'] field)* ['asc'|'desc']
 *   subquery  := 'select' ('*' | field) 'from' class ['where' or] tail   -- inside ( )
 *
 * The result is a class query in the terms of the REST API (where, keys, include, order, limit,
 * skip, count): the CQL guide itself says CQL is translated into where conditions, so the
 * statement runs through the same parsing, permission checks and SQL as `GET /1.1/classes`.
 */
import type { JsonObject, JsonValue } from '../../module-api/reads.ts';
import { ConditionParser, parseField } from './cql-conditions.ts';
import { cqlError } from './cql-error.ts';
import { Cursor } from './cql-cursor.ts';
import { tokenize, type Token } from './cql-lexer.ts';
import { parseNumber } from './cql-values.ts';

/** Longest statement accepted, in UTF-8 bytes (the CQL guide's limit). */
export const MAX_CQL_BYTES = 4096;

/** A parsed `select`: the parts of a class query. Absent members mean the REST default. */
export interface CqlSelect {
  readonly className: string;
  readonly where: JsonObject;
  /** Selected fields; undefined means all fields (`*`, or only `include` items). */
  readonly keys?: readonly string[];
  readonly include: readonly string[];
  /** `count(*)` / `count(objectId)` was selected. */
  readonly count: boolean;
  /** False when only the count was selected: no objects are returned. */
  readonly results: boolean;
  /** The REST `order` parameter (`score,-name`). */
  readonly order?: string;
  readonly limit?: number;
  readonly skip?: number;
}

interface Tail {
  order?: string;
  limit?: number;
  skip?: number;
}

function parseClassName(c: Cursor): string {
  const t = c.peek();
  if (t.kind !== 'ident') return c.fail('expected a class name');
  c.next();
  return t.text;
}

/** A non-negative integer or a placeholder holding one (limit and skip). */
function parseCount(c: Cursor, what: string): number {
  const t = c.peek();
  const n: JsonValue = t.kind === 'placeholder' ? c.placeholder() : parseNumber(c, what);
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return cqlError(t.pos, `${what} must be a non-negative integer`);
  return n;
}

function parseOrder(c: Cursor): string {
  c.expectKeyword('by');
  const keys: { sign?: '+' | '-'; field: string }[] = [];
  do {
    const sign = c.acceptPunct('-') ? '-' : c.acceptPunct('+') ? '+' : undefined;
    keys.push({ sign, field: parseField(c) });
  } while (c.acceptPunct(','));
  // A trailing asc/desc applies to every key written without a sign (the guide's rule).
  let descending = false;
  if (c.acceptKeyword('desc')) descending = true;
  else c.acceptKeyword('asc');
  return keys.map((k) => ((k.sign ?? (descending ? '-' : '+')) === '-' ? `-${k.field}` : k.field)).join(',');
}

function parseTail(c: Cursor): Tail {
  const tail: Tail = {};
  for (;;) {
    const at = c.peek();
    if (c.acceptKeyword('limit')) {
      if (tail.limit !== undefined) cqlError(at.pos, "'limit' may appear only once");
      const first = parseCount(c, 'limit');
      if (c.acceptPunct(',')) {
        tail.skip = first;
        tail.limit = parseCount(c, 'limit');
      } else {
        tail.limit = first;
      }
    } else if (c.acceptKeyword('order')) {
      if (tail.order !== undefined) cqlError(at.pos, "'order by' may appear only once");
      tail.order = parseOrder(c);
    } else {
      return tail;
    }
  }
}

/** The parser of one statement: the cursor plus the sub-select parser handed to conditions. */
class StatementParser {
  private readonly conditions: ConditionParser;

  constructor(private readonly c: Cursor) {
    this.conditions = new ConditionParser(c, (cur) => this.parseSubSelect(cur));
  }

  parseSelect(): CqlSelect {
    const c = this.c;
    if (!c.acceptKeyword('select')) {
      const t = c.peek();
      if (t.kind === 'ident' && ['insert', 'update', 'delete'].includes(t.text.toLowerCase())) {
        c.fail(`only select statements are supported (${t.text.toLowerCase()} is not; write through the REST API)`);
      }
      c.fail("expected 'select'");
    }
    let all = false;
    let count = false;
    const fields: string[] = [];
    const include: string[] = [];
    do {
      if (c.acceptPunct('*')) all = true;
      else if (c.isKeyword('include') && c.peek(1).kind === 'ident') {
        c.next();
        include.push(parseField(c));
      } else if (c.isKeyword('count') && c.isPunct('(', 1)) {
        c.next();
        c.expectPunct('(');
        if (!c.acceptPunct('*') && !c.acceptKeyword('objectid')) c.fail("count takes '*' or 'objectId'");
        c.expectPunct(')');
        count = true;
      } else fields.push(parseField(c));
    } while (c.acceptPunct(','));
    c.expectKeyword('from');
    const className = parseClassName(c);
    const where = c.acceptKeyword('where') ? this.conditions.parseOr() : {};
    const tail = parseTail(c);
    const results = all || fields.length > 0 || include.length > 0 || !count;
    const keys = all || fields.length === 0 ? undefined : [...new Set([...fields, ...include.map((p) => p.split('.')[0])])];
    return { className, where, ...(keys ? { keys } : {}), include, count, results, ...tail };
  }

  /** `select * | field from C [where ...] [limit] [order]` inside parentheses. */
  private parseSubSelect(c: Cursor): { query: JsonObject; key?: string } {
    c.expectKeyword('select');
    const key = c.acceptPunct('*') ? undefined : parseField(c);
    c.expectKeyword('from');
    const className = parseClassName(c);
    const where = c.acceptKeyword('where') ? this.conditions.parseOr() : {};
    const tail = parseTail(c);
    const query: Record<string, JsonValue> = { className, where };
    if (tail.limit !== undefined) query.limit = tail.limit;
    if (tail.skip !== undefined) query.skip = tail.skip;
    if (tail.order !== undefined) query.order = tail.order;
    return { query, key };
  }
}

/**
 * Parses one CQL statement with its placeholder values. Syntax errors, a statement over
 * 4,096 bytes and placeholder mismatches are error 300 with the position.
 */
export function parseCql(cql: string, pvalues: readonly JsonValue[] = []): CqlSelect {
  if (Buffer.byteLength(cql, 'utf8') > MAX_CQL_BYTES) cqlError(0, `the statement is longer than ${MAX_CQL_BYTES} bytes`);
  const tokens: Token[] = tokenize(cql);
  const c = new Cursor(tokens, pvalues);
  const statement = new StatementParser(c).parseSelect();
  c.finish();
  return statement;
}
