/**
 * Translates LeanCloud `$regex` patterns (PCRE / Java flavour, what MongoDB ran) into PostgreSQL
 * AREs. The pattern is walked once; constructs the two dialects spell differently are rewritten,
 * constructs PostgreSQL cannot run are rejected with a clear error, everything else is copied.
 * Whatever slips through and is still invalid fails in PostgreSQL with SQLSTATE 2201B, which the
 * storage layer maps to error 102, so no invalid pattern can become a 500.
 *
 * Newline semantics map to ARE embedded options (PostgreSQL's default, unlike PCRE's, lets `.`
 * match a newline):
 *   PCRE default (`.` excludes \n, `^` `$` at string ends) -> `p`; m -> `n`; s -> `s`; m+s -> `w`;
 *   i -> `i`; x -> `x`.
 * Known small differences, accepted: in `p`/`n` mode a negated bracket (`[^a]`) does not match a
 * newline (PCRE's does); PCRE's `$` also matches before a final newline; case folding and `\w`
 * follow the database ctype (Unicode under PGlite's C.UTF-8 and UTF-8 PostgreSQL locales).
 * In `x` mode PostgreSQL treats vertical tab as white space but LeanCloud (PCRE) does not, so a
 * literal VT outside brackets is emitted as the escape `\v` and keeps matching itself.
 */
import { ApiError } from '../errors/api-error.js';
import { MAX_REGEX_LENGTH } from './limits.js';
/** The `$options` letters LeanCloud documents. */
export const REGEX_OPTIONS = 'imxs';
/** PCRE's `\h` (horizontal white space) and `\v` (vertical white space) as bracket contents. */
const HORIZONTAL_SPACE = '\\t\\u0020\\u00a0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000';
const VERTICAL_SPACE = '\\n\\u000b\\f\\r\\u0085\\u2028\\u2029';
function invalid(message) {
    throw new ApiError('invalidRegex', `Invalid regular expression: ${message}.`);
}
/** Checks `$options` and returns the set of letters. */
export function parseRegexOptions(options) {
    const set = new Set();
    for (const ch of options) {
        if (!REGEX_OPTIONS.includes(ch)) {
            invalid(`unsupported option ${JSON.stringify(ch)} in $options (use any of i, m, s, x)`);
        }
        set.add(ch);
    }
    return set;
}
/** A character written so that PostgreSQL reads it literally, also inside brackets and in x mode. */
export function escapeLiteral(ch) {
    if (/^[A-Za-z0-9]$/.test(ch))
        return ch;
    // Non-ASCII characters are never metacharacters; a backslash before one could be read as an
    // invalid escape under locales that classify it as alphanumeric.
    if (ch.codePointAt(0) > 0x7f)
        return ch;
    return '\\' + ch;
}
function hexEscape(hex) {
    const code = parseInt(hex, 16);
    if (!Number.isFinite(code) || code === 0 || code > 0x10ffff)
        invalid(`bad hexadecimal escape \\x${hex}`);
    return '\\U' + code.toString(16).padStart(8, '0');
}
/** Leading PCRE inline options `(?imsx)` become part of the embedded options. */
function leadingFlags(source) {
    const m = /^\(\?([imsx]+)\)/.exec(source);
    return m ? { flags: m[1], rest: source.slice(m[0].length) } : { flags: '', rest: source };
}
/** Translates a pattern and its `$options` into `(?flags)pattern` for PostgreSQL's `~`. */
export function translateRegex(source, options = '') {
    if (source.length > MAX_REGEX_LENGTH) {
        throw new ApiError('queryTooComplex', `The query is too complex: $regex patterns are limited to ${MAX_REGEX_LENGTH} characters.`);
    }
    const lead = leadingFlags(source);
    const flags = parseRegexOptions(options + lead.flags);
    const body = translateBody(lead.rest, flags.has('x'));
    const newline = flags.has('m') ? (flags.has('s') ? 'w' : 'n') : flags.has('s') ? 's' : 'p';
    return `(?${newline}${flags.has('i') ? 'i' : ''}${flags.has('x') ? 'x' : ''})${body}`;
}
/** Handles `(?...)` group openers; returns the text to emit and how many characters were read. */
function groupOpener(src, i) {
    const rest = src.slice(i);
    for (const kept of ['(?:', '(?=', '(?!', '(?<=', '(?<!']) {
        if (rest.startsWith(kept))
            return { out: kept, used: kept.length };
    }
    // Named groups capture like plain groups; PostgreSQL has no names, so drop them.
    const named = /^\(\?(?:P?<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(rest);
    if (named)
        return { out: '(', used: named[0].length };
    if (rest.startsWith('(?#')) {
        const end = rest.indexOf(')');
        if (end < 0)
            invalid('unterminated (?# comment');
        return { out: '', used: end + 1 };
    }
    if (/^\(\?[-imsxn]+[:)]/.test(rest))
        invalid('inline options are only supported at the start of the pattern');
    if (rest.startsWith('(?'))
        invalid(`unsupported group ${JSON.stringify(rest.slice(0, 4))}`);
    return { out: '(', used: 1 };
}
/** Translates one escape sequence starting at the backslash at `i`. */
function escapeSequence(src, i, inBracket) {
    const c = src[i + 1];
    if (c === undefined)
        invalid('the pattern ends with a backslash');
    switch (c) {
        case 'b':
            return { out: inBracket ? '\\b' : '\\y', used: 2 }; // PCRE word boundary = ARE \y
        case 'B':
            return { out: inBracket ? 'B' : '\\Y', used: 2 }; // in ARE, \B means a backslash
        case 'z':
        case 'Z':
            return { out: '\\Z', used: 2 };
        case 'h':
            return { out: inBracket ? HORIZONTAL_SPACE : `[${HORIZONTAL_SPACE}]`, used: 2 };
        case 'v':
            return { out: inBracket ? VERTICAL_SPACE : `[${VERTICAL_SPACE}]`, used: 2 };
        case 'p':
        case 'P':
            return invalid('Unicode property escapes (\\p, \\P) are not supported');
        case 'x': {
            const braced = /^\{([0-9A-Fa-f]{1,8})\}/.exec(src.slice(i + 2));
            if (braced)
                return { out: hexEscape(braced[1]), used: 2 + braced[0].length };
            // PCRE reads at most two hex digits; ARE's \x would read all of them.
            const short = /^[0-9A-Fa-f]{1,2}/.exec(src.slice(i + 2));
            if (!short)
                return invalid('\\x needs hexadecimal digits');
            return { out: hexEscape(short[0]), used: 2 + short[0].length };
        }
        case 'c': {
            const ctl = src[i + 2];
            if (ctl === undefined)
                invalid('\\c needs a following character');
            return { out: '\\c' + ctl, used: 3 };
        }
        default: {
            const code = c.codePointAt(0);
            if (code > 0x7f) {
                const ch = String.fromCodePoint(code);
                return { out: ch, used: 1 + ch.length };
            }
            return { out: '\\' + c, used: 2 };
        }
    }
}
/** Walks the pattern: quoting, escapes, brackets, groups and x-mode comments. */
function translateBody(src, extended) {
    let out = '';
    let inBracket = false;
    let bracketStart = 0;
    let depth = 0;
    let i = 0;
    while (i < src.length) {
        const ch = src[i];
        if (ch === '\\' && src[i + 1] === 'Q') {
            const end = src.indexOf('\\E', i + 2);
            const literal = end < 0 ? src.slice(i + 2) : src.slice(i + 2, end);
            for (const lc of literal)
                out += escapeLiteral(lc);
            i = end < 0 ? src.length : end + 2;
            continue;
        }
        if (ch === '\\' && src[i + 1] === 'E') {
            i += 2; // a stray \E is ignored, as in PCRE
            continue;
        }
        if (ch === '\\') {
            const esc = escapeSequence(src, i, inBracket);
            out += esc.out;
            i += esc.used;
            continue;
        }
        if (inBracket) {
            const cls = /^\[([:.=])/.exec(src.slice(i));
            if (cls) {
                const close = src.indexOf(cls[1] + ']', i + 2);
                if (close < 0)
                    invalid('unterminated [: :] class');
                out += src.slice(i, close + 2);
                i = close + 2;
                continue;
            }
            if (ch === ']' && i > bracketStart)
                inBracket = false;
            out += ch;
            i += 1;
            continue;
        }
        if (ch === '[') {
            inBracket = true;
            out += '[';
            i += 1;
            if (src[i] === '^') {
                out += '^';
                i += 1;
            }
            bracketStart = i + (src[i] === ']' ? 1 : 0); // a leading ] is literal
            continue;
        }
        if (ch === '(') {
            const g = groupOpener(src, i);
            if (g.out !== '')
                depth += 1;
            out += g.out;
            i += g.used;
            continue;
        }
        if (ch === ')') {
            depth -= 1;
            if (depth < 0)
                invalid('unmatched )');
        }
        else if (extended && ch === '#') {
            const nl = src.indexOf('\n', i);
            const end = nl < 0 ? src.length : nl;
            out += src.slice(i, end);
            i = end;
            continue;
        }
        else if (extended && ch === '\v') {
            out += '\\v';
            i += 1;
            continue;
        }
        out += ch;
        i += 1;
    }
    if (inBracket)
        invalid('missing ]');
    if (depth > 0)
        invalid('missing )');
    return out;
}
//# sourceMappingURL=regex.js.map