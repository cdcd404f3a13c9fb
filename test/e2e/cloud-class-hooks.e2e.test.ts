// Class hooks of a real LeanEngine app (npm `leanengine`) on every write path, driven through the
// official SDK: beforeSave's object is stored, beforeUpdate's changes too, refusals are 142,
// after-hooks run after the commit, batches fail per item, __ignore_hooks needs a key.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { forEachEngineWithCloud } from '../integration/harness/engine-app.ts';
import { TEST_KEYS } from '../integration/harness/engines.ts';
import { signHookSkip } from '../../src/cloud/ignore-hooks.ts';
import { hookLog } from './cloud-user-hooks.e2e.test.ts';
import { AV, pointSdkAt, rejectsWithCode } from './sdk.ts';

const tag = () => randomBytes(5).toString('hex');

forEachEngineWithCloud('e2e cloud class hooks', (h) => {
  let user: AV.User;
  before(async () => {
    pointSdkAt(h().larderUrl);
    await AV.User.logOut();
    user = await AV.User.signUp(`ch${tag()}`, 'pw-hooks');
  });

  test('beforeSave: the object the hook returns is stored; afterSave runs after the commit with the user', async () => {
    const review = new AV.Object('Review');
    review.set({ stars: 4, comment: 'a comment longer than twenty characters' });
    await review.save(null, { fetchWhenSave: true });
    assert.equal(review.get('byBeforeSave'), 1);
    const stored = await new AV.Query('Review').get(review.id as string);
    assert.equal(stored.get('comment'), 'a comment longer tha...');
    assert.equal(stored.get('byBeforeSave'), 1);
    assert.equal(stored.get('author'), user.id);
    const logs = await hookLog(h(), { hook: 'afterSave', target: review.id });
    assert.equal(logs.length, 1);
    assert.equal(logs[0].author, user.id);
  });

  test('beforeSave refusal: 142 with the hook message, nothing stored', async () => {
    const comment = `refused-${tag()}`;
    const review = new AV.Object('Review');
    review.set({ stars: 0, comment });
    const err = await rejectsWithCode(review.save(), 142);
    assert.match(err.message, /^Cloud Code validation failed\. Error detail : stars must be at least 1/);
    assert.equal(await new AV.Query('Review').equalTo('comment', comment).count(), 0);
  });

  test('beforeUpdate: its changes are stored, operations kept; a refusal leaves the object unchanged', async () => {
    const review = new AV.Object('Review');
    review.set({ stars: 2, comment: 'ok' });
    await review.save();
    review.set('comment', 'better');
    review.increment('stars', 2);
    await review.save(null, { fetchWhenSave: true });
    const stored = await new AV.Query('Review').get(review.id as string);
    assert.equal(stored.get('comment'), 'better');
    assert.equal(stored.get('stars'), 4);
    assert.equal(stored.get('byBeforeUpdate'), 1);
    const logs = await hookLog(h(), { hook: 'afterUpdate', target: review.id });
    assert.ok((logs[0].updatedKeys as string[]).includes('comment'));
    review.set('comment', 'bad');
    await rejectsWithCode(review.save(), 142);
    assert.equal((await new AV.Query('Review').get(review.id as string)).get('comment'), 'better');
  });

  test('beforeDelete vetoes; afterDelete runs after a delete', async () => {
    const locked = new AV.Object('Review');
    locked.set({ stars: 5, locked: true });
    await locked.save();
    const err = await rejectsWithCode(locked.destroy(), 142);
    assert.match(err.message, /locked reviews stay/);
    assert.ok(await new AV.Query('Review').get(locked.id as string));
    const free = new AV.Object('Review');
    free.set({ stars: 5 });
    await free.save();
    await free.destroy();
    assert.equal((await hookLog(h(), { hook: 'afterDelete', target: free.id })).length, 1);
  });

  test('batch: each item runs its hooks; a refused item fails alone', async () => {
    const c = `batch-${tag()}`;
    const res = await h().client.post('/1.1/batch', {
      requests: [
        { method: 'POST', path: '/1.1/classes/Review', body: { stars: 3, comment: c } },
        { method: 'POST', path: '/1.1/classes/Review', body: { stars: 0, comment: c } },
        { method: 'POST', path: '/1.1/classes/Review', body: { stars: 5, comment: c } },
      ],
    });
    assert.equal(res.status, 200);
    assert.ok(res.body[0].success && res.body[2].success, JSON.stringify(res.body));
    assert.equal(res.body[1].error.code, 142);
    const stored = await new AV.Query('Review').equalTo('comment', c).find();
    assert.equal(stored.length, 2);
    assert.ok(stored.every((r) => r.get('byBeforeSave') === 1));
    const saved = [new AV.Object('Review'), new AV.Object('Review')];
    saved.forEach((r, i) => r.set({ stars: i + 1, comment: c }));
    await AV.Object.saveAll(saved);
    assert.equal(await new AV.Query('Review').equalTo('comment', c).equalTo('byBeforeSave', 1).count(), 4);
  });

  test('__ignore_hooks: refused without a key (and never stored), honoured with the master key or hook key', async () => {
    const c = `ignore-${tag()}`;
    const plain = await h().client.post('/1.1/classes/Review', { stars: 0, comment: c, __ignore_hooks: ['beforeSave'] });
    assert.equal(plain.body.code, 142);
    const master = await h().client.post('/1.1/classes/Review', { stars: 0, comment: c, __ignore_hooks: ['beforeSave'] }, { master: true });
    assert.equal(master.status, 201, JSON.stringify(master.body));
    const hookKey = await h().client.post('/1.1/classes/Review', { stars: 0, comment: c, __ignore_hooks: ['beforeSave'] }, { headers: { 'x-lc-hook-key': h().app.keys.hookKey } });
    assert.equal(hookKey.status, 201, JSON.stringify(hookKey.body));
    const wrongKey = await h().client.post('/1.1/classes/Review', { stars: 0, comment: c, __ignore_hooks: ['beforeSave'] }, { headers: { 'x-lc-hook-key': 'wrong' } });
    assert.equal(wrongKey.body.code, 142);
    const stored = await h().client.get(`/1.1/classes/Review/${master.body.objectId}`, {}, { master: true });
    assert.equal(stored.body.byBeforeSave, undefined);
    assert.equal(stored.body.__ignore_hooks, undefined);
  });

  test('legacy signed __before / __after (HMAC-SHA1 with the master key) skip the hooks; bad ones do not; never stored', async () => {
    const c = `legacy-${tag()}`;
    const skipped = await h().client.post('/1.1/classes/Review', { stars: 0, comment: c, __before: signHookSkip(TEST_KEYS.masterKey, '__before_for_Review', Date.now()) });
    assert.equal(skipped.status, 201, JSON.stringify(skipped.body));
    const forged = await h().client.post('/1.1/classes/Review', { stars: 0, comment: c, __before: signHookSkip('not-the-master-key', '__before_for_Review', Date.now()) });
    assert.equal(forged.body.code, 142);
    const stale = await h().client.post('/1.1/classes/Review', { stars: 0, comment: c, __before: signHookSkip(TEST_KEYS.masterKey, '__before_for_Review', Date.now() - 60 * 60_000) });
    assert.equal(stale.body.code, 142);
    const stored = await h().client.get(`/1.1/classes/Review/${skipped.body.objectId}`, {}, { master: true });
    assert.equal(stored.body.byBeforeSave, undefined);
    assert.equal(stored.body.__before, undefined);
    const noAfter = await h().client.post('/1.1/classes/Review', { stars: 2, comment: c, __after: signHookSkip(TEST_KEYS.masterKey, '__after_for_Review', Date.now()) });
    assert.equal(noAfter.status, 201);
    const withAfter = await h().client.post('/1.1/classes/Review', { stars: 2, comment: c });
    // The afterSave of the second write is logged; by then the first one's would have been too.
    assert.equal((await hookLog(h(), { hook: 'afterSave', target: withAfter.body.objectId })).length, 1);
    assert.equal((await hookLog(h(), { hook: 'afterSave', target: noAfter.body.objectId }, 500)).length, 0);
  });

  test('cloud code that writes back with ignoreHook: stored as written, the other hooks still run', async () => {
    const comment = `writeback-${tag()}`;
    const id = (await AV.Cloud.run('writeBack', { comment })) as string;
    const stored = await new AV.Query('Review').get(id);
    assert.equal(stored.get('stars'), 0);
    assert.equal(stored.get('byBeforeSave'), undefined);
    assert.equal((await hookLog(h(), { hook: 'afterSave', target: id })).length, 1);
  });

  test('_User sign-up goes through beforeSave (password kept); no hooks for _Installation', async () => {
    const username = `hk${tag()}`;
    const u = await AV.User.signUp(username, 'pw-signup');
    const stored = await h().client.get(`/1.1/users/${u.id}`, {}, { master: true });
    assert.equal(stored.body.viaBeforeSave, true);
    await AV.User.logOut();
    assert.equal((await AV.User.logIn(username, 'pw-signup')).id, u.id);
    const inst = await h().client.post('/1.1/classes/_Installation', { deviceType: 'android', installationId: tag() });
    assert.ok(inst.status === 201 || inst.status === 200, JSON.stringify(inst.body));
  });

  test('an after-hook error never fails the request; it is counted', async () => {
    const before = h().app.cloud?.counters.afterHookFailures ?? 0;
    const boom = new AV.Object('Boom');
    boom.set({ n: 1 });
    await boom.save();
    const deadline = Date.now() + 20_000;
    while ((h().app.cloud?.counters.afterHookFailures ?? 0) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok((h().app.cloud?.counters.afterHookFailures ?? 0) > before);
  });

  test('50 parallel saves through a beforeSave all succeed', async () => {
    const c = `par-${tag()}`;
    await Promise.all(Array.from({ length: 50 }, (_, i) => new AV.Object('Counter').save({ i, c })));
    assert.equal(await new AV.Query('Counter').equalTo('c', c).count(), 50);
  });
});

forEachEngineWithCloud(
  'e2e cloud hook failures',
  (h) => {
    test('a before-hook slower than its timeout: 141, nothing stored', async () => {
      const res = await h().client.post('/1.1/classes/Slow', { n: 1 });
      assert.equal(res.body.code, 141, JSON.stringify(res.body));
      assert.equal(res.status, 503);
      const count = await h().client.get('/1.1/classes/Slow', { count: 1, limit: 0 }, { master: true });
      assert.equal(count.body.count, 0);
    });

    test('engine down: hooked writes fail with a clear error, other writes work', async () => {
      await h().engineApp.stop();
      const res = await h().client.post('/1.1/classes/Review', { stars: 3 });
      assert.equal(res.status, 502);
      assert.equal(res.body.code, 1);
      assert.match(res.body.error, /LARDER_ENGINE_URL/);
      assert.equal((await h().client.post('/1.1/classes/NoHooks', { n: 1 })).status, 201);
      const fn = await h().client.post('/1.1/functions/hello', {});
      assert.equal(fn.status, 502);
    });
  },
  { beforeHookTimeoutMs: 1000 },
);

// Keep TEST_KEYS referenced for readers: the engine app runs with these keys.
void TEST_KEYS;
