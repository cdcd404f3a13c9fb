import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql, staticText } from '../sql/fragment.ts';
import { MAX_SHAPE_TEXTS, prepared, preparedShape, statementName } from './prepared-statements.ts';

const name = (s: ReturnType<typeof sql>) => statementName(s, s.toQuery().text);

test('only marked statements get a name, stable per text; client-query shapes only up to their own bound', () => {
  assert.equal(name(sql`SELECT ${1}`), undefined, 'unmarked');
  const fixed = name(prepared(sql`SELECT ${1} AS fixed`));
  assert.ok(fixed);
  assert.equal(name(prepared(sql`SELECT ${2} AS fixed`)), fixed, 'same text, same name, whatever the values');

  const shapes: (string | undefined)[] = [];
  for (let i = 0; i < MAX_SHAPE_TEXTS + 5; i++) shapes.push(name(preparedShape(staticText(`SELECT ${i} AS shape`))));
  assert.equal(new Set(shapes.slice(0, MAX_SHAPE_TEXTS)).size, MAX_SHAPE_TEXTS, 'the first shapes are named');
  assert.deepEqual(shapes.slice(MAX_SHAPE_TEXTS), [undefined, undefined, undefined, undefined, undefined], 'later shapes run unprepared');
  assert.equal(name(preparedShape(staticText('SELECT 0 AS shape'))), shapes[0], 'a shape named before keeps its name');
  assert.ok(name(prepared(sql`SELECT ${1} AS another_fixed`)), 'the shapes bound does not hold back fixed statements');
});
