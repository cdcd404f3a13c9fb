import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTextPlain } from './function-fast-path.ts';

test('isTextPlain reads a Content-Type as /^text\\/plain/i did', () => {
  const regex = /^text\/plain/i;
  const types = [
    undefined, '', 'text/plain', 'TEXT/PLAIN', 'Text/Plain; charset=utf-8', 'text/plainx', 'text/plai', 'text/html',
    ' text/plain', 'application/json', 'application/json; charset=utf-8', 'tExt/pLain;', 'text\\plain', 'text/p1ain',
    'Text/plaİn', 'tEXT/PLAIN ', 'textplain!!', 'x/plain', 'T', 't',
  ];
  for (const t of types) assert.equal(isTextPlain(t), t !== undefined && regex.test(t), JSON.stringify(t));
});
