import { cqlError } from './cql-error.js';
// Longest first, so `<=` is not read as `<` then `=`.
const PUNCTUATION = ['!=', '<>', '<=', '>=', '=', '<', '>', '(', ')', ',', '.', '[', ']', '{', '}', ':', '*', '+', '-'];
const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[A-Za-z0-9_$]/;
const NUMBER = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/;
/** Reads a quoted string starting at `start` (quote char at `start`); `\x` escapes and doubled quotes. */
function readString(src, start) {
    const quote = src[start];
    let out = '';
    let i = start + 1;
    while (i < src.length) {
        const c = src[i];
        if (c === '\\' && i + 1 < src.length) {
            const n = src[i + 1];
            out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n;
            i += 2;
        }
        else if (c === quote) {
            if (src[i + 1] === quote) {
                out += quote;
                i += 2;
            }
            else {
                return { text: out, end: i + 1 };
            }
        }
        else {
            out += c;
            i += 1;
        }
    }
    return cqlError(start, 'unterminated string');
}
/** Splits a CQL statement into tokens; the last token is always `end`. */
export function tokenize(src) {
    const out = [];
    let i = 0;
    while (i < src.length) {
        const c = src[i];
        if (/\s/.test(c)) {
            i += 1;
        }
        else if (c === "'" || c === '"') {
            const s = readString(src, i);
            out.push({ kind: 'string', text: s.text, pos: i });
            i = s.end;
        }
        else if (c === '`') {
            const end = src.indexOf('`', i + 1);
            if (end < 0 || end === i + 1)
                cqlError(i, 'unterminated or empty quoted name');
            out.push({ kind: 'ident', text: src.slice(i + 1, end), pos: i, quoted: true });
            i = end + 1;
        }
        else if (c === '?') {
            out.push({ kind: 'placeholder', text: '?', pos: i });
            i += 1;
        }
        else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
            const m = NUMBER.exec(src.slice(i));
            out.push({ kind: 'number', text: m[0], pos: i });
            i += m[0].length;
        }
        else if (IDENT_START.test(c)) {
            let j = i + 1;
            while (j < src.length && IDENT_PART.test(src[j]))
                j += 1;
            out.push({ kind: 'ident', text: src.slice(i, j), pos: i });
            i = j;
        }
        else {
            const p = PUNCTUATION.find((q) => src.startsWith(q, i));
            if (!p)
                cqlError(i, `unexpected character ${JSON.stringify(c)}`);
            out.push({ kind: 'punct', text: p, pos: i });
            i += p.length;
        }
    }
    out.push({ kind: 'end', text: '', pos: src.length });
    return out;
}
//# sourceMappingURL=cql-lexer.js.map