import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommandError } from './command-error.ts';
import { parseSyncArgs } from './sync-args.ts';

const KEYS = ['--from', 'https://api.example.com', '--app-id', 'id1', '--app-key', 'k1', '--master-key', 'mk1'];

test('the source flags, defaults, and target flags left for loadConfig', () => {
  const a = parseSyncArgs([...KEYS, '--database-url', 'postgres://x/y', '--db-schema=s1']);
  assert.equal(a.from, 'https://api.example.com');
  assert.deepEqual([a.appId, a.appKey, a.masterKey], ['id1', 'k1', 'mk1']);
  assert.deepEqual([a.intervalS, a.overlapS, a.reconcileS, a.pageSize, a.once, a.auth, a.classes], [10, 60, 600, 1000, false, 'sign', undefined]);
  assert.deepEqual(a.configFlags, { '--database-url': 'postgres://x/y', '--db-schema': 's1' });
});

test('--once takes no value and may come anywhere; --classes is a comma list', () => {
  const a = parseSyncArgs(['--once', ...KEYS, '--classes', ' Post, _User ,', '--interval', '2.5', '--auth', 'key', '--page-size', '100']);
  assert.equal(a.once, true);
  assert.deepEqual(a.classes, ['Post', '_User']);
  assert.equal(a.intervalS, 2.5);
  assert.equal(a.auth, 'key');
  assert.equal(a.pageSize, 100);
});

test('the keys may come from LARDER_SYNC_* instead (flags win)', () => {
  const env = { LARDER_SYNC_APP_ID: 'envId', LARDER_SYNC_APP_KEY: 'envKey', LARDER_SYNC_MASTER_KEY: 'envMaster' };
  const a = parseSyncArgs(['--from', 'http://h', '--app-id', 'flagId'], env);
  assert.deepEqual([a.appId, a.appKey, a.masterKey], ['flagId', 'envKey', 'envMaster']);
  assert.throws(() => parseSyncArgs(['--from', 'http://h'], {}), /needs --app-id \(or LARDER_SYNC_APP_ID\)/);
});

test('--help needs no other flag', () => {
  assert.equal(parseSyncArgs(['--help']).help, true);
  assert.equal(parseSyncArgs(['-h']).help, true);
});

test('mistakes are CommandErrors that name the flag', () => {
  const cases: [string[], RegExp][] = [
    [[], /needs --from/],
    [KEYS.slice(0, 6), /needs --master-key/],
    [[...KEYS, '--interval', 'soon'], /--interval must be a number of seconds/],
    [[...KEYS, '--interval', '0'], /--interval must be at least 0.1/],
    [[...KEYS, '--page-size', '1001'], /--page-size must be an integer from 1 to 1000/],
    [[...KEYS, '--page-size', '0'], /--page-size/],
    [[...KEYS, '--auth', 'basic'], /--auth must be sign or key/],
    [[...KEYS, '--classes', ','], /--classes names no class/],
    [[...KEYS, '--once=yes'], /--once takes no value/],
    [[...KEYS, '--from'], /--from needs a value/],
    [[...KEYS, 'extra'], /unexpected argument "extra"/],
  ];
  for (const [argv, msg] of cases) {
    assert.throws(() => parseSyncArgs(argv), (e: unknown) => e instanceof CommandError && msg.test(e.message), argv.join(' '));
  }
});
