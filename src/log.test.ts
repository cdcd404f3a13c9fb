import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Writable } from 'node:stream';
import { createLogger } from './log.ts';

test('secrets are redacted at any of the first three levels and in headers', () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  const log = createLogger('info', sink as unknown as Parameters<typeof createLogger>[1]);
  log.info({ password: 'p1', user: { sessionToken: 't1', deep: { masterKey: 'm1' } }, req: { headers: { 'x-lc-session': 's1', 'x-lc-key': 'k1' } } }, 'x');
  const out = lines.join('');
  for (const secret of ['p1', 't1', 'm1', 's1', 'k1']) assert.equal(out.includes(secret), false, secret);
  assert.ok(out.includes('[redacted]'));
});
