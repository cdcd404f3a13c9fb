import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import { escapeLiteral, translateRegex } from './regex.ts';

const TRANSLATIONS: Array<[name: string, source: string, options: string, expected: string]> = [
  ['plain pattern gets PCRE newline semantics (p)', 'abc', '', '(?p)abc'],
  ['i', 'abc', 'i', '(?pi)abc'],
  ['m -> n', '^a$', 'm', '(?n)^a$'],
  ['s -> s', 'a.b', 's', '(?s)a.b'],
  ['m+s -> w', 'a.b', 'ms', '(?w)a.b'],
  ['x', 'a b # c', 'x', '(?px)a b # c'],
  ['all options, repeated letters', 'a', 'iixsm', '(?wix)a'],
  ['JS SDK startsWith', '^\\Qp\\E', '', '(?p)^p'],
  ['JS SDK contains with metacharacters', '\\Qa.b*c?(d)[e]{f}|g^h$i+\\E', '', '(?p)a\\.b\\*c\\?\\(d\\)\\[e\\]\\{f\\}\\|g\\^h\\$i\\+'],
  ['JS SDK endsWith', '\\Qend\\E$', '', '(?p)end$'],
  ['JS SDK quoting of \\E inside the text', '\\Qa\\E\\\\E\\Qb\\E', '', '(?p)a\\\\Eb'],
  ['\\Q without \\E runs to the end', '\\Qa.b', '', '(?p)a\\.b'],
  ['stray \\E is ignored', 'a\\Eb', '', '(?p)ab'],
  ['\\Q..\\E with a backslash', '\\Qa\\b\\E', '', '(?p)a\\\\b'],
  ['\\Q..\\E keeps non-ASCII unescaped', '\\Qé中\\E', '', '(?p)é中'],
  ['\\Q..\\E in x mode keeps spaces and #', '\\Qa b#c\\E', 'x', '(?px)a\\ b\\#c'],
  ['\\Q..\\E inside brackets', '[\\Q]-\\E]', '', '(?p)[\\]\\-]'],
  ['leading inline options merge', '(?i)abc', '', '(?pi)abc'],
  ['leading inline options with $options', '(?s)a.b', 'm', '(?w)a.b'],
  ['\\b -> \\y (word boundary)', '\\bword\\b', '', '(?p)\\yword\\y'],
  ['\\B -> \\Y', 'a\\B', '', '(?p)a\\Y'],
  ['\\b in brackets stays backspace', '[\\b]', '', '(?p)[\\b]'],
  ['\\z and \\Z -> \\Z', 'a\\z|b\\Z', '', '(?p)a\\Z|b\\Z'],
  ['\\A kept', '\\Aa', '', '(?p)\\Aa'],
  ['class escapes kept', '\\d+\\w*\\s\\D\\W\\S', '', '(?p)\\d+\\w*\\s\\D\\W\\S'],
  ['\\xhh reads two digits only', '\\x41BC', '', '(?p)\\U00000041BC'],
  ['\\x{h..}', '\\x{4e2d}', '', '(?p)\\U00004e2d'],
  ['\\uhhhh kept', '\\u0041', '', '(?p)\\u0041'],
  ['\\h is horizontal white space', 'a\\hb', '', '(?p)a[\\t\\u0020\\u00a0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000]b'],
  ['\\v is vertical white space', 'a\\vb', '', '(?p)a[\\n\\u000b\\f\\r\\u0085\\u2028\\u2029]b'],
  ['escaped punctuation kept', 'a\\.b\\/c', '', '(?p)a\\.b\\/c'],
  ['escaped non-ASCII becomes the character', '\\é', '', '(?p)é'],
  ['backreference kept', '(a)\\1', '', '(?p)(a)\\1'],
  ['non-capturing group and lookarounds kept', '(?:a)(?=b)(?!c)(?<=d)(?<!e)', '', '(?p)(?:a)(?=b)(?!c)(?<=d)(?<!e)'],
  ['named groups become plain groups', '(?<year>\\d{4})-(?P<m>\\d\\d)', '', '(?p)(\\d{4})-(\\d\\d)'],
  ['(?# comments) dropped', 'a(?# note )b', '', '(?p)ab'],
  ['POSIX classes kept', '[[:alpha:]]+', '', '(?p)[[:alpha:]]+'],
  ['leading ] in a bracket is literal', '[]a]', '', '(?p)[]a]'],
  ['negated bracket with ]', '[^]a]', '', '(?p)[^]a]'],
  ['( and ) inside brackets are literal', '[()]', '', '(?p)[()]'],
  ['x mode comment may hold parentheses', 'a # (not a group\nb', 'x', '(?px)a # (not a group\nb'],
  ['x mode: vertical tab is not white space', 'a\u000bb', 'x', '(?px)a\\vb'],
  ['vertical tab kept outside x mode', 'a\u000bb', '', '(?p)a\u000bb'],
  ['JS RegExp source of an empty regex', '(?:)', '', '(?p)(?:)'],
];

describe('translateRegex', () => {
  for (const [name, source, options, expected] of TRANSLATIONS) {
    test(name, () => assert.equal(translateRegex(source, options), expected));
  }
});

const INVALID: Array<[name: string, source: string, options: string, message: RegExp]> = [
  ['option g', 'a', 'g', /unsupported option "g"/],
  ['option u', 'a', 'iu', /unsupported option "u"/],
  ['trailing backslash', 'a\\', '', /ends with a backslash/],
  ['unbalanced (', '(a', '', /missing \)/],
  ['unbalanced )', 'a)', '', /unmatched \)/],
  ['unterminated bracket', '[a', '', /missing \]/],
  ['unterminated POSIX class', '[[:alpha]', '', /unterminated/],
  ['Unicode property', '\\p{L}', '', /Unicode property/],
  ['inline options mid-pattern', 'a(?i)b', '', /only supported at the start/],
  ['scoped inline options', '(?i:a)', '', /only supported at the start/],
  ['atomic group', '(?>a)', '', /unsupported group/],
  ['bad hex escape', '\\xZ', '', /hexadecimal/],
  ['hex escape out of range', '\\x{110000}', '', /bad hexadecimal/],
  ['NUL through hex', '\\x00', '', /bad hexadecimal/],
  ['too long', 'a'.repeat(1001), '', /limited to 1000/],
];

describe('translateRegex rejects', () => {
  for (const [name, source, options, message] of INVALID) {
    test(name, () => {
      assert.throws(
        () => translateRegex(source, options),
        (err: unknown) => err instanceof ApiError && err.code === 102 && message.test(err.message),
      );
    });
  }
});

describe('escapeLiteral', () => {
  const CASES: Array<[string, string]> = [['a', 'a'], ['7', '7'], ['.', '\\.'], ['\\', '\\\\'], [' ', '\\ '], ['\n', '\\\n'], ['é', 'é']];
  for (const [input, expected] of CASES) {
    test(JSON.stringify(input), () => assert.equal(escapeLiteral(input), expected));
  }
});
