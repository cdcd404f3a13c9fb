import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readLines } from './read-lines.ts';

async function lines(chunks: (string | Buffer)[]): Promise<[number, string][]> {
  const out: [number, string][] = [];
  for await (const l of readLines((async function* () { yield* chunks; })())) out.push([l.n, l.text]);
  return out;
}

test('lines are numbered across chunks; CRLF and a missing last newline are handled', async () => {
  assert.deepEqual(await lines(['a\nb', 'c\r\n', '\nd']), [[1, 'a'], [2, 'bc'], [3, ''], [4, 'd']]);
  assert.deepEqual(await lines(['x\n']), [[1, 'x']]);
  assert.deepEqual(await lines([]), []);
});

test('a UTF-8 character split between chunks is decoded whole', async () => {
  const bytes = Buffer.from('世界\n', 'utf8');
  assert.deepEqual(await lines([bytes.subarray(0, 2), bytes.subarray(2, 4), bytes.subarray(4)]), [[1, '世界']]);
});
