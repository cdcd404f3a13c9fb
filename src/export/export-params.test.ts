import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExportParams, storedExportParams } from './export-params.ts';
import { thrownCode } from '../../test/support/thrown-code.ts';

test('no parameters: every class, data and schema', () => {
  assert.deepEqual(parseExportParams(undefined, {}), { onlySchema: false });
  assert.deepEqual(parseExportParams({}, {}), { onlySchema: false });
});

test('a bare to_date covers its whole day; from_date is inclusive from midnight UTC', () => {
  const p = parseExportParams({ from_date: '2015-09-20', to_date: '2015-09-21' }, {});
  assert.equal(p.fromDate, '2015-09-20T00:00:00.000Z');
  assert.equal(p.toDate, '2015-09-22T00:00:00.000Z');
  const exact = parseExportParams({ to_date: '2015-09-21T10:00:00+02:00' }, {});
  assert.equal(exact.toDate, '2015-09-21T08:00:00.000Z');
  assert.deepEqual(parseExportParams({ from_date: '2015-09-20', to_date: '2015-09-20' }, {}).toDate, '2015-09-21T00:00:00.000Z');
});

test('classes are split, trimmed, de-duplicated and checked; the body wins over the query', () => {
  assert.deepEqual(parseExportParams({ classes: ' _User, Post ,Post,' }, {}).classes, ['_User', 'Post']);
  assert.deepEqual(parseExportParams({ classes: 'A' }, { classes: 'B', 'only-schema': 'true' }), { classes: ['A'], onlySchema: true });
  assert.equal(parseExportParams({ classes: ' , ' }, {}).classes, undefined);
  assert.equal(thrownCode(() => parseExportParams({ classes: 'ok,not ok' }, {})), 103);
  assert.equal(thrownCode(() => parseExportParams({ classes: '_Internal' }, {})), 103);
});

test('bad values are refused', () => {
  assert.equal(thrownCode(() => parseExportParams({ from_date: '2015-13-01' }, {})), 1);
  assert.equal(thrownCode(() => parseExportParams({ from_date: '2015-09-21', to_date: '2015-09-20' }, {})), 1);
  assert.equal(thrownCode(() => parseExportParams({ to_date: ['2015-09-20'] }, {})), 1);
  assert.equal(thrownCode(() => parseExportParams({ 'only-schema': 'yes' }, {})), 1);
  assert.equal(thrownCode(() => parseExportParams({ email: 'nope' }, {})), 125);
  assert.equal(thrownCode(() => parseExportParams('text', {})), 107);
  assert.equal(thrownCode(() => parseExportParams({ classes: Array.from({ length: 501 }, (_, i) => `C${i}`).join(',') }, {})), 1);
});

test('stored params read back as written', () => {
  const p = parseExportParams({ from_date: '2020-01-01', classes: 'A,B', email: 'a@b.co', 'only-schema': false }, {});
  assert.deepEqual(storedExportParams(JSON.parse(JSON.stringify(p))), p);
  assert.deepEqual(storedExportParams('garbage'), { onlySchema: false });
});
