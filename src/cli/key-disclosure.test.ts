import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isLoopbackHost } from './start-banner.ts';
import { keyDisclosure, keyFileText, writeKeyFile } from './key-disclosure.ts';

const dir = mkdtempSync(join(tmpdir(), 'larder-keys-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const KEYS = { appId: 'id-larder', appKey: 'appKEY', masterKey: 'masterKEY' };

test('a terminal may see the keys; any other stdout (the log stream) never does', () => {
  assert.deepEqual(keyDisclosure(true, '/x/keys'), { kind: 'terminal' });
  assert.deepEqual(keyDisclosure(false, '/x/keys'), { kind: 'file', path: '/x/keys' });
});

test('the key file is KEY=value lines with mode 0600, also when it existed with a wider mode', () => {
  const path = join(dir, 'sub', 'larder-keys.env');
  writeKeyFile(path, KEYS);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'sub')).mode & 0o777, 0o700);
  assert.equal(readFileSync(path, 'utf8'), keyFileText(KEYS));
  assert.match(readFileSync(path, 'utf8'), /^LARDER_MASTER_KEY=masterKEY$/m);
  const old = join(dir, 'old.env');
  writeFileSync(old, 'stale stale stale stale stale stale stale stale stale stale stale', { mode: 0o644 });
  writeKeyFile(old, KEYS);
  assert.equal(statSync(old).mode & 0o777, 0o600);
  assert.equal(readFileSync(old, 'utf8'), keyFileText(KEYS), 'truncated, not overwritten in place');
});

test('loopback hosts are recognised', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '1270.0.0.1', 'example.com']) assert.equal(isLoopbackHost(h), false, h);
});
