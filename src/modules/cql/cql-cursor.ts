import type { JsonValue } from '../../module-api/reads.ts';
import { cqlError } from './cql-error.ts';
import type { Token } from './cql-lexer.ts';

function describe(t: Token): string {
  if (t.kind === 'end') return 'the end of the statement';
  if (t.kind === 'string') return `the string ${JSON.stringify(t.text.slice(0, 40))}`;
  return `'${t.text.slice(0, 40)}'`;
}

/**
 * The parser's position in the token list, and the placeholder values (`pvalues`) handed out to
 * `?` tokens in the order they appear. Keywords match case-insensitively and never match a
 * backquoted name.
 */
export class Cursor {
  private i = 0;
  private used = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly pvalues: readonly JsonValue[],
  ) {}

  /** The token `offset` places ahead (the `end` token past the end). */
  peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)];
  }

  /** Consumes and returns the current token. */
  next(): Token {
    const t = this.peek();
    if (t.kind !== 'end') this.i += 1;
    return t;
  }

  /** True when the token `offset` ahead is the keyword `word` (lower case). */
  isKeyword(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'ident' && !t.quoted && t.text.toLowerCase() === word;
  }

  /** Consumes the keyword when it is next. */
  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.i += 1;
    return true;
  }

  /** Consumes the keyword or fails naming it. */
  expectKeyword(word: string): void {
    if (!this.acceptKeyword(word)) this.fail(`expected '${word}'`);
  }

  /** True when the token `offset` ahead is the punctuation `p`. */
  isPunct(p: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'punct' && t.text === p;
  }

  /** Consumes the punctuation when it is next. */
  acceptPunct(p: string): boolean {
    if (!this.isPunct(p)) return false;
    this.i += 1;
    return true;
  }

  /** Consumes the punctuation or fails naming it. */
  expectPunct(p: string): void {
    if (!this.acceptPunct(p)) this.fail(`expected '${p}'`);
  }

  /** Error 300 at the current token (or `at`), saying what was expected and what was found. */
  fail(what: string, at: Token = this.peek()): never {
    return cqlError(at.pos, `${what}, found ${describe(at)}`);
  }

  /** The value of the next `?` (the current token). */
  placeholder(): JsonValue {
    const t = this.next();
    if (this.used >= this.pvalues.length) cqlError(t.pos, `placeholder ${this.used + 1} has no value in pvalues (${this.pvalues.length} given)`);
    return this.pvalues[this.used++];
  }

  /** Fails unless every token and every placeholder value was used. */
  finish(): void {
    if (this.peek().kind !== 'end') this.fail('expected the end of the statement');
    if (this.used !== this.pvalues.length) cqlError(this.peek().pos, `pvalues has ${this.pvalues.length} values but the statement has ${this.used} placeholders`);
  }
}
