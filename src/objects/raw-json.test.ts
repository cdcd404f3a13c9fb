import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeRow } from './encode.ts';
import { mayHoldFile, parsedRow, RawJson, rowJson } from './raw-json.ts';

// What jsonb prints for a document (key order by length, then bytes; ", " and ": " spacing).
const docs: string[] = [
  '{}',
  '{"n": 0, "name": "x4", "owner": {"__type": "Pointer", "objectId": "abc", "className": "BenchOwner"}, "score": 4}',
  '{"s": "quote \\" backslash \\\\ unicode é 日本", "arr": [1, 2.5, -3e-7, null, true], "deep": {"a": {"b": []}}}',
];

for (const doc of docs) {
  test(`rowJson parses to what encodeRow gives: ${doc.slice(0, 40)}`, () => {
    const row = { objectId: 'o1', createdAt: '2026-11-21 22:35:34.123+00', updatedAt: '2026-11-21 22:35:35+00', data_text: doc };
    const fromText = JSON.parse(rowJson(row)) as unknown;
    const parsed = encodeRow(parsedRow(row), { className: 'Bench', withAcl: false });
    assert.deepEqual(fromText, parsed);
    // Same members in the same order, so clients see the same object.
    assert.deepEqual(Object.keys(fromText as object), Object.keys(parsed));
  });
}

test('a File reference sends the row through the parsing path', () => {
  const base = { objectId: 'o1', createdAt: '2026-11-21 22:35:34+00', updatedAt: '2026-11-21 22:35:34+00' };
  assert.equal(mayHoldFile({ ...base, data_text: '{"pic": {"id": "f1", "__type": "File"}}' }), true);
  assert.equal(mayHoldFile({ ...base, data_text: '{"pics": [{"id": "f1", "__type": "File"}]}' }), true);
  assert.equal(mayHoldFile({ ...base, data_text: '{"p": {"__type": "Pointer", "objectId": "x", "className": "File"}}' }), false);
  assert.equal(mayHoldFile({ ...base, data_text: '{"kind": "File", "f": {"__type": "Date", "iso": "File"}}' }), false);
  assert.equal(mayHoldFile({ ...base, data_text: '{"a": "File\\"", "b": {"__type":"File"}}' }), false);
  assert.equal(mayHoldFile({ ...base, data_text: '{"kind": "File", "f": {"id": "f1", "__type": "File"}}' }), true);
});

test('RawJson serialises as the value it holds, not as a string', () => {
  assert.equal(JSON.stringify({ success: new RawJson('{"a":[1,{"b":2}]}') }), '{"success":{"a":[1,{"b":2}]}}');
});
