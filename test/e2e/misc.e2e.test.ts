// Server date, unknown classes and how server errors surface in the SDK's AV.Error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AV, forEachEngineWithSdk, rejectsWithCode, saved } from './sdk.ts';
import { TEST_KEYS } from '../integration/harness/engines.ts';

const NO_ID = '000000000000000000000000';

forEachEngineWithSdk('e2e misc', (h) => {
  test('the SDK signs requests with X-LC-Sign (app key, and ,master with the master key)', async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const watch = (req: { headers: Record<string, string | string[] | undefined> }) => seen.push(req.headers);
    h().server.server.on('request', watch);
    try {
      await new AV.Query<AV.Object>('Signed').find();
      await new AV.Query<AV.Object>('Signed').find({ useMasterKey: true });
    } finally {
      h().server.server.off('request', watch);
    }
    assert.equal(seen.length, 2);
    for (const headers of seen) {
      assert.equal(headers['x-lc-id'], TEST_KEYS.appId);
      assert.equal(headers['x-lc-key'], undefined);
    }
    assert.match(String(seen[0]['x-lc-sign']), /^[0-9a-f]{32},\d{13}$/);
    assert.match(String(seen[1]['x-lc-sign']), /^[0-9a-f]{32},\d{13},master$/);
  });

  test('AV.Cloud.getServerDate returns the server time as a Date', async () => {
    const before = Date.now();
    const date = await AV.Cloud.getServerDate();
    const after = Date.now();
    assert.ok(date instanceof Date);
    assert.ok(date.getTime() >= before - 1000 && date.getTime() <= after + 1000, `server date ${date.toISOString()} is not now`);
  });

  test('an unknown class: fetch is 101, find is empty, count is 0', async () => {
    const err = await rejectsWithCode(AV.Object.createWithoutData('NoSuchClass', NO_ID).fetch(), 101);
    assert.match(String(err.rawMessage), /doesn't exist/);
    await rejectsWithCode(new AV.Query<AV.Object>('NoSuchClass').get(NO_ID), 101);
    assert.deepEqual(await new AV.Query<AV.Object>('NoSuchClass').find(), []);
    assert.equal(await new AV.Query<AV.Object>('NoSuchClass').count(), 0);
    assert.equal(await new AV.Query<AV.Object>('NoSuchClass').first(), undefined);
  });

  test('an unknown id in a known class: fetch brings nothing, query get is 101', async () => {
    await saved('Known', { a: 1 });
    const ghost = AV.Object.createWithoutData('Known', NO_ID);
    await ghost.fetch();
    assert.equal(ghost.get('a'), undefined);
    await rejectsWithCode(new AV.Query<AV.Object>('Known').get(NO_ID), 101);
  });

  test('updating or deleting an unknown id is code 1', async () => {
    await saved('Known', { a: 1 });
    const ghost = AV.Object.createWithoutData('Known', NO_ID);
    ghost.set('a', 2);
    const err = await rejectsWithCode(ghost.save(), 1);
    assert.match(String(err.rawMessage), /Could not find object/);
    assert.equal(await new AV.Query<AV.Object>('Known').equalTo('a', 2).count(), 0);
  });

  test('a field type is locked by its first write: 111', async () => {
    await saved('Locked', { n: 1 });
    const bad = new AV.Object('Locked');
    bad.set('n', 'one');
    const err = await rejectsWithCode(bad.save(), 111);
    assert.ok(err instanceof Error);
    assert.ok(String(err.rawMessage).length > 0);
    assert.equal(await new AV.Query<AV.Object>('Locked').count(), 1);
  });

  test('an invalid key name is 105, an invalid class name 103, and nothing is written', async () => {
    const badKey = new AV.Object('Keys');
    badKey.set('bad-key', 1);
    await rejectsWithCode(badKey.save(), 105);
    assert.equal(await new AV.Query<AV.Object>('Keys').count(), 0);
    const badClass = new AV.Object('bad-class');
    badClass.set('a', 1);
    await rejectsWithCode(badClass.save(), 103);
  });

  test('an invalid regular expression is 102 (invalid query)', async () => {
    await saved('Rx', { s: 'x' });
    // A string pattern: JavaScript cannot even build this RegExp, the SDK sends strings as they are.
    const unbalanced = '(a|b' as unknown as RegExp;
    await rejectsWithCode(new AV.Query<AV.Object>('Rx').matches('s', unbalanced).find(), 102);
  });

  test('a wrong app key is refused with 401 and the SDK keeps working after', async () => {
    const good = AV.applicationKey;
    AV.applicationKey = 'not-the-key';
    try {
      const err = await rejectsWithCode(new AV.Query<AV.Object>('Known').find(), 401);
      assert.match(err.message, /401/);
    } finally {
      AV.applicationKey = good;
    }
    assert.equal(AV.applicationKey, TEST_KEYS.appKey);
    assert.ok(Array.isArray(await new AV.Query<AV.Object>('Known').find()));
  });

  test('a wrong master key is refused with 401', async () => {
    const good = AV.masterKey;
    AV.masterKey = 'not-the-master-key';
    try {
      await rejectsWithCode(new AV.Query<AV.Object>('Known').find({ useMasterKey: true }), 401);
    } finally {
      AV.masterKey = good;
    }
    assert.ok(Array.isArray(await new AV.Query<AV.Object>('Known').find({ useMasterKey: true })));
  });
});
