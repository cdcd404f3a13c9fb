import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SETTINGS } from '../../src/config.ts';
import { tableRows, unquote } from './markdown-table.ts';

const DOC = readFileSync(new URL('../../docs/running.md', import.meta.url), 'utf8');

/** Rows of the settings table: env | flag | config key | default | meaning. */
function settingRows(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const cells of tableRows(DOC)) {
    if (cells.length === 5 && /^`[A-Z][A-Z0-9_]*`$/.test(cells[0])) out.set(unquote(cells[0]), cells.map(unquote));
  }
  return out;
}

test('docs/running.md names every environment variable of SETTINGS', () => {
  const missing = SETTINGS.filter((s) => !DOC.includes(s.env)).map((s) => s.env);
  assert.deepEqual(missing, []);
});

test('the settings table of docs/running.md has one row per setting, with its flag, key and default', () => {
  const rows = settingRows();
  const wrong: string[] = [];
  for (const s of SETTINGS) {
    const row = rows.get(s.env);
    const def = s.default === undefined ? '' : String(s.default);
    if (!row || row[1] !== s.flag || row[2] !== s.key || !row[3].replace(/[`,_ ]/g, '').startsWith(def)) {
      wrong.push(`| \`${s.env}\` | \`${s.flag}\` | \`${s.key}\` | ${def ? `\`${def}\`` : '(none)'} | ${s.help} |`);
    }
  }
  assert.deepEqual(wrong, [], `docs/running.md: these settings rows are missing or wrong:\n${wrong.join('\n')}`);
  const known = new Set(SETTINGS.map((s) => s.env));
  const extra = [...rows.keys()].filter((env) => !known.has(env) && env !== 'LARDER_CONFIG');
  assert.deepEqual(extra, [], 'rows for settings that do not exist');
});

test('the settings table of docs/running.md lists each setting once', () => {
  const envs = tableRows(DOC).filter((cells) => cells.length === 5 && /^`[A-Z_]+`$/.test(cells[0])).map((cells) => unquote(cells[0]));
  assert.deepEqual(envs.filter((e, i) => envs.indexOf(e) !== i), [], 'rows given twice');
});
