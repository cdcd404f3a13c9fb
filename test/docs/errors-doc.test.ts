import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERRORS, type ErrorSpec } from '../../src/errors/error-codes.ts';
import { moduleErrors } from '../../src/errors/module-errors.ts';
// Every module of the build, so that each declares its errors (src/module-api/errors.ts).
import '../../src/modules/index.ts';
import { tableRows, unquote } from './markdown-table.ts';

const DOC = new URL('../../docs/errors.md', import.meta.url);

/** The core catalogue and every module's declared errors: what docs/errors.md must list. */
const CATALOGUE: Record<string, ErrorSpec> = { ...ERRORS, ...Object.fromEntries(moduleErrors().map((e) => [e.name, e])) };

/** The catalogue row as docs/errors.md writes it (printed on failure, ready to paste). */
function row(name: string, e: ErrorSpec): string {
  return `| \`${name}\` | ${e.code} | ${e.status} | ${e.message.replace(/\|/g, '\\|')} |`;
}

/** Catalogue rows of the doc: name (in backticks) | code | HTTP status | message. */
function documented(): Map<string, { code: number; status: number; message: string }> {
  const out = new Map<string, { code: number; status: number; message: string }>();
  for (const cells of tableRows(readFileSync(DOC, 'utf8'))) {
    if (cells.length !== 4 || !/^`\w+`$/.test(cells[0])) continue;
    const name = unquote(cells[0]);
    assert.ok(!out.has(name), `docs/errors.md lists ${name} twice`);
    out.set(name, { code: Number(cells[1]), status: Number(cells[2]), message: cells[3] });
  }
  return out;
}

test('docs/errors.md lists every catalogue entry with its code, HTTP status and message', () => {
  const doc = documented();
  const wrong: string[] = [];
  for (const [name, e] of Object.entries(CATALOGUE)) {
    const d = doc.get(name);
    if (!d || d.code !== e.code || d.status !== e.status || d.message !== e.message) wrong.push(row(name, e));
  }
  assert.deepEqual(wrong, [], `docs/errors.md is out of date; the catalogue rows should read:\n${wrong.join('\n')}`);
});

test('docs/errors.md lists nothing that is not in the catalogue', () => {
  const extra = [...documented().keys()].filter((name) => !(name in CATALOGUE));
  assert.deepEqual(extra, [], 'remove these rows from docs/errors.md (not in src/errors/error-codes.ts nor declared by a module)');
});

test('the table parser sees the doc at all', () => {
  // Guards the two tests above against passing vacuously on a reformatted table.
  assert.ok(documented().size >= Object.keys(CATALOGUE).length);
});
