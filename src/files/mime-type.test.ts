import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guessMimeType } from './mime-type.ts';

test('mime types come from the name, then the URL path, else octet-stream', () => {
  assert.equal(guessMimeType('photo.JPG'), 'image/jpeg');
  assert.equal(guessMimeType('noext', 'https://cdn.example.com/a/b.png?x=1'), 'image/png');
  assert.equal(guessMimeType('noext', 'https://cdn.example.com/a/b'), 'application/octet-stream');
  assert.equal(guessMimeType('.hidden'), 'application/octet-stream');
});

test('extensions named like Object.prototype members are unknown types, not crashes', () => {
  for (const name of ['a.constructor', 'a.__proto__', 'a.toString', 'a.hasOwnProperty']) {
    assert.equal(guessMimeType(name), 'application/octet-stream', name);
  }
});
