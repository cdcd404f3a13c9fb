import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { ApiError } from '../errors/api-error.ts';
import type { AppKeys } from './app-keys.ts';
import { authenticate, type AuthOptions, type Credentials } from './authenticate.ts';

// The example of the LeanCloud REST guide (leancloud-behaviour §9).
const DOC = { ts: '1453014943466', appKey: 'UtOCzqb67d3sN12Kts4URwy8', masterKey: 'DyJegPlemooo4X1tg94gQkw1' };
const DOC_APP_SIGN = 'd5bcbb897e19b2f6633c716dfdfaf9be';
const DOC_MASTER_SIGN = 'e074720658078c898aa0d4b1b82bdf4b';

const keys: AppKeys = { appId: 'app-1', appKey: DOC.appKey, masterKey: DOC.masterKey, hookKey: 'hk', serverSecret: 'x'.repeat(64) };
const WINDOW = 15 * 60 * 1000;

function opts(now = Number(DOC.ts)): AuthOptions {
  return { keys, masterSignWindowMs: WINDOW, now: () => now };
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

function refused(c: Credentials, o: AuthOptions = opts()): void {
  assert.throws(
    () => authenticate(c, o),
    (err: unknown) => err instanceof ApiError && err.status === 401 && err.code === 401 && err.message === 'Unauthorized.',
  );
}

test('the documented signature vectors are accepted (app key and master key)', () => {
  assert.deepEqual(authenticate({ appId: 'app-1', sign: `${DOC_APP_SIGN},${DOC.ts}` }, opts()), { master: false });
  assert.deepEqual(authenticate({ appId: 'app-1', sign: `${DOC_MASTER_SIGN},${DOC.ts},master` }, opts()), { master: true });
});

test('the signature is md5(timestamp + key) in hex; upper-case hex is tolerated like the engine SDKs', () => {
  const ts = '1700000000000';
  assert.equal(md5(ts + DOC.appKey).length, 32);
  assert.deepEqual(authenticate({ appId: 'app-1', sign: `${md5(ts + DOC.appKey)},${ts}` }, opts()), { master: false });
  assert.deepEqual(authenticate({ appId: 'app-1', sign: `${md5(ts + DOC.appKey).toUpperCase()},${ts}` }, opts()), { master: false });
});

test('a master signature is valid only within the window, in both directions', () => {
  const ts = Number(DOC.ts);
  const sign = `${DOC_MASTER_SIGN},${DOC.ts},master`;
  assert.equal(authenticate({ appId: 'app-1', sign }, opts(ts + WINDOW)).master, true);
  assert.equal(authenticate({ appId: 'app-1', sign }, opts(ts - WINDOW)).master, true);
  refused({ appId: 'app-1', sign }, opts(ts + WINDOW + 1));
  refused({ appId: 'app-1', sign }, opts(ts - WINDOW - 1));
});

test('an app-key signature has no window (like the original service)', () => {
  const tenYears = 10 * 365 * 24 * 3600 * 1000;
  const sign = `${DOC_APP_SIGN},${DOC.ts}`;
  assert.equal(authenticate({ appId: 'app-1', sign }, opts(Number(DOC.ts) + tenYears)).master, false);
});

test('an app-key signature cannot claim master, and a master signature needs the master key', () => {
  refused({ appId: 'app-1', sign: `${DOC_APP_SIGN},${DOC.ts},master` });
  // The master-key hash without the suffix is checked against the app key and fails.
  refused({ appId: 'app-1', sign: `${DOC_MASTER_SIGN},${DOC.ts}` });
});

test('malformed signatures are refused', () => {
  for (const sign of [
    DOC_APP_SIGN,
    `${DOC_APP_SIGN},`,
    `,${DOC.ts}`,
    `${DOC_APP_SIGN},${DOC.ts},admin`,
    `${DOC_APP_SIGN},${DOC.ts},master,extra`,
    `${DOC_APP_SIGN},abc`,
    `${DOC_APP_SIGN},-1453014943466`,
    `${DOC_APP_SIGN},${DOC.ts}.5`,
    `${DOC_APP_SIGN},12345678901234567`,
    `${md5('1453014943467' + DOC.appKey)},${DOC.ts}`,
  ]) refused({ appId: 'app-1', sign });
});

test('app key, "<master>,master" and the legacy master-key header are accepted', () => {
  assert.deepEqual(authenticate({ appId: 'app-1', key: DOC.appKey }, opts()), { master: false });
  assert.deepEqual(authenticate({ appId: 'app-1', key: `${DOC.masterKey},master` }, opts()), { master: true });
  assert.deepEqual(authenticate({ appId: 'app-1', masterKey: DOC.masterKey }, opts()), { master: true });
});

test('the bare master key in the app-key slot is not the app key', () => {
  refused({ appId: 'app-1', key: DOC.masterKey });
  refused({ appId: 'app-1', key: `${DOC.appKey},master` });
});

test('wrong or missing app id, key or credentials are 401 Unauthorized.', () => {
  refused({});
  refused({ key: DOC.appKey });
  refused({ appId: 'app-1' });
  refused({ appId: 'app-2', key: DOC.appKey });
  refused({ appId: 'APP-1', key: DOC.appKey });
  refused({ appId: 'app-1', key: DOC.appKey + 'x' });
  refused({ appId: 'app-1', key: DOC.appKey.slice(0, -1) });
  refused({ appId: 'app-1', masterKey: DOC.appKey });
  refused({ appId: '', key: DOC.appKey });
});

test('a signature, when given, is what counts: a wrong sign is not rescued by a valid key', () => {
  refused({ appId: 'app-1', key: DOC.appKey, sign: `${'0'.repeat(32)},${DOC.ts}` });
});
