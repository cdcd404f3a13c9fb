import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentDisposition, etagMatches, mayRenderInline, parseRange } from './file-headers.ts';

test('only images (not SVG), audio, video and plain text render inline', () => {
  for (const t of ['image/png', 'image/jpeg', 'IMAGE/GIF', 'audio/mpeg', 'video/mp4', 'text/plain; charset=utf-8']) assert.equal(mayRenderInline(t), true, t);
  for (const t of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/xml', 'application/javascript', 'application/pdf', 'application/octet-stream', 'text/html; x=image/png']) {
    assert.equal(mayRenderInline(t), false, t);
  }
});

test('Content-Disposition keeps CR, LF, quotes and non-ASCII out of the quoted name', () => {
  const h = contentDisposition('a"\r\nSet-Cookie: x=1\\.png', true);
  assert.equal(/[\r\n]/.test(h), false);
  assert.match(h, /^inline; filename="a___Set-Cookie: x=1_\.png"; filename\*=UTF-8''a%22%0D%0ASet-Cookie%3A%20x%3D1%5C\.png$/);
  assert.equal(contentDisposition('头像.png', false), `attachment; filename="__.png"; filename*=UTF-8''%E5%A4%B4%E5%83%8F.png`);
  assert.match(contentDisposition('', true), /filename="file"/);
});

test('Range: one range of bytes; the rest is the whole file or unsatisfiable', () => {
  assert.deepEqual(parseRange(undefined, 10), { kind: 'full' });
  assert.deepEqual(parseRange('bytes=0-3', 10), { kind: 'partial', range: { start: 0, end: 3 } });
  assert.deepEqual(parseRange('bytes=5-', 10), { kind: 'partial', range: { start: 5, end: 9 } });
  assert.deepEqual(parseRange('bytes=-4', 10), { kind: 'partial', range: { start: 6, end: 9 } });
  assert.deepEqual(parseRange('bytes=-40', 10), { kind: 'partial', range: { start: 0, end: 9 } });
  assert.deepEqual(parseRange('bytes=8-100', 10), { kind: 'partial', range: { start: 8, end: 9 } });
  assert.deepEqual(parseRange('bytes=10-', 10), { kind: 'unsatisfiable' });
  assert.deepEqual(parseRange('bytes=-0', 10), { kind: 'unsatisfiable' });
  assert.deepEqual(parseRange('bytes=0-1,4-5', 10), { kind: 'full' });
  assert.deepEqual(parseRange('items=0-1', 10), { kind: 'full' });
  assert.deepEqual(parseRange('bytes=5-2', 10), { kind: 'full' });
  assert.deepEqual(parseRange('bytes=0-0', 0), { kind: 'unsatisfiable' });
});

test('If-None-Match: exact, list, weak and * match', () => {
  assert.equal(etagMatches('"abc"', '"abc"'), true);
  assert.equal(etagMatches('"x", W/"abc"', '"abc"'), true);
  assert.equal(etagMatches('*', '"abc"'), true);
  assert.equal(etagMatches('"abd"', '"abc"'), false);
  assert.equal(etagMatches(undefined, '"abc"'), false);
});
