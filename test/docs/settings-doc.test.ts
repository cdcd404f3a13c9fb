import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { settingCatalogue } from '../../src/settings/setting-catalogue.ts';
// The core's settings and every module's (each declares its own through src/module-api/settings.ts).
import '../../src/settings/app-settings.ts';
import '../../src/modules/index.ts';
import { tableRows, unquote } from './markdown-table.ts';

const DOC = readFileSync(new URL('../../docs/admin.md', import.meta.url), 'utf8');

/** Rows of the settings table of docs/admin.md: | `name` | default | meaning |. */
function documented(): Map<string, string> {
  const out = new Map<string, string>();
  for (const cells of tableRows(DOC)) {
    if (cells.length !== 3 || !/^`\w+`$/.test(cells[0])) continue;
    out.set(unquote(cells[0]), cells[1]);
  }
  return out;
}

test('docs/admin.md documents every setting of the catalogue with its default', () => {
  const doc = documented();
  const wrong: string[] = [];
  for (const { key, spec } of settingCatalogue()) {
    const cell = doc.get(key);
    if (cell === undefined) {
      wrong.push(`${key}: not documented (default ${JSON.stringify(spec.default)}: ${spec.doc})`);
      continue;
    }
    // Defaults that are long objects are described in words ("see src/..."); the rest are JSON.
    if (!cell.startsWith('`')) continue;
    let shown: unknown;
    try {
      shown = JSON.parse(unquote(cell));
    } catch {
      wrong.push(`${key}: default cell ${cell} is not JSON`);
      continue;
    }
    if (JSON.stringify(shown) !== JSON.stringify(spec.default)) wrong.push(`${key}: docs say ${cell}, the default is ${JSON.stringify(spec.default)}`);
  }
  assert.deepEqual(wrong, []);
});

test('docs/admin.md documents no setting the catalogue does not know', () => {
  const known = new Set(settingCatalogue().map((e) => e.key));
  assert.deepEqual([...documented().keys()].filter((k) => !known.has(k)), []);
  assert.ok(known.size >= 15, 'core and module settings are all declared');
});
