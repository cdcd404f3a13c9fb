/**
 * requestHead keeps the names it has checked (engine-request.ts): the head must be the same on
 * every call, a bad name or value refused every time, and the names it writes itself skipped in
 * any case, however often a name comes back and however many names it has seen.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineCallError } from './engine-call-error.ts';
import { requestHead } from './engine-request.ts';

const FRAMING = 'content-length: 2\r\n';

test('the same headers give the same head on every call, framing names skipped in any case', () => {
  const headers = { 'content-type': 'application/json', 'X-LC-Id': 'app', 'Content-Length': '99', HOST: 'evil', 'transfer-encoding': 'chunked', Connection: 'close', 'x-real-ip': '127.0.0.1' };
  const expected = 'POST /1.1/functions/hello HTTP/1.1\r\nhost: engine:3000\r\ncontent-type: application/json\r\nX-LC-Id: app\r\nx-real-ip: 127.0.0.1\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n';
  for (let i = 0; i < 3; i++) assert.equal(requestHead('POST', '/1.1/functions/hello', 'engine:3000', headers, FRAMING), expected, `call ${i + 1}`);
});

test('a bad header name or value is refused on every call, also after the name was accepted', () => {
  const refused = (headers: Record<string, string>) =>
    assert.throws(() => requestHead('POST', '/p', 'h', headers, FRAMING), (err: unknown) => err instanceof EngineCallError && err.kind === 'unreachable' && /invalid request header/.test(err.message));
  for (let i = 0; i < 3; i++) {
    refused({ 'bad name': 'v' });
    refused({ 'x-ok': 'v', 'x:colon': 'v' });
    refused({ 'x-ok': 'a\r\nx-injected: 1' });
    refused({ 'x-ok': 'a\nb' });
    refused({ 'x-ok': 'a\0b' });
    assert.match(requestHead('POST', '/p', 'h', { 'x-ok': 'fine' }, FRAMING), /\r\nx-ok: fine\r\n/);
  }
});

test('past the names it keeps, names are still checked and written', () => {
  for (let i = 0; i < 600; i++) {
    assert.match(requestHead('GET', '/p', 'h', { [`x-name-${i}`]: String(i) }, ''), new RegExp(`\\r\\nx-name-${i}: ${i}\\r\\n`));
    assert.throws(() => requestHead('GET', '/p', 'h', { [`x name ${i}`]: 'v' }, ''), EngineCallError);
    assert.doesNotMatch(requestHead('GET', '/p', 'h', { [i % 2 ? 'HoSt' : 'CONNECTION']: 'x' }, ''), /HoSt|CONNECTION/);
  }
});
