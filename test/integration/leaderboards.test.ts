// Leaderboards over HTTP (/1.1/leaderboard): management with the master key, statistics by
// update strategy (also concurrent), rankings, versions, automatic resets and archives.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { seedUsers } from './harness/seed-users.ts';
import { assertError } from './harness/user-helpers.ts';

const M = { master: true } as const;
type User = { objectId: string; sessionToken: string; username?: string };

async function board(h: Harness, body: Record<string, unknown>) {
  const res = await h.client.post('/1.1/leaderboard/leaderboards', body, M);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function post(h: Harness, u: User, stats: Record<string, number>, extra: { overwrite?: boolean; master?: boolean } = {}) {
  const body = Object.entries(stats).map(([statisticName, statisticValue]) => ({ statisticName, statisticValue }));
  return h.client.post(`/1.1/leaderboard/users/${u.objectId}/statistics`, body, {
    ...(extra.master ? M : { session: u.sessionToken }),
    ...(extra.overwrite ? { query: { overwrite: 1 } } : {}),
  });
}

forEachEngine('leaderboards', (h) => {
  after(() => {
    h().app.clock = undefined;
  });

  test('create, read, change, reset and delete need the master key for writes', async () => {
    const [u] = await seedUsers(h(), 1);
    const created = await board(h(), { statisticName: 'wins', order: 'descending', updateStrategy: 'better', versionChangeInterval: 'month' });
    assert.deepEqual(Object.keys(created).sort(), ['activatedAt', 'createdAt', 'expiredAt', 'objectId', 'order', 'statisticName', 'updateStrategy', 'updatedAt', 'version', 'versionChangeInterval']);
    assert.equal(created.version, 0);
    assert.equal(created.expiredAt.__type, 'Date');
    assert.equal(new Date(created.expiredAt.iso).getUTCDate(), 1, 'a monthly board resets on the first');
    const defaults = await board(h(), { statisticName: 'plain' });
    assert.deepEqual([defaults.order, defaults.updateStrategy, defaults.versionChangeInterval], ['descending', 'better', 'week']);
    const never = await board(h(), { statisticName: 'forever', versionChangeInterval: 'never' });
    assert.equal(never.expiredAt, undefined);

    assertError(await h().client.post('/1.1/leaderboard/leaderboards', { statisticName: 'x1' }, { session: u.sessionToken }), 403, 1);
    assertError(await h().client.post('/1.1/leaderboard/leaderboards', { statisticName: 'wins' }, M), 400, 1);
    assertError(await h().client.post('/1.1/leaderboard/leaderboards', { statisticName: 'bad-name' }, M), 400, 1);
    assertError(await h().client.post('/1.1/leaderboard/leaderboards', { statisticName: 'ok2', order: 'up' }, M), 400, 1);

    const read = await h().client.get('/1.1/leaderboard/leaderboards/wins');
    assert.deepEqual(read.body, created);
    assertError(await h().client.get('/1.1/leaderboard/leaderboards/nosuch'), 404, 1);

    assertError(await h().client.put('/1.1/leaderboard/leaderboards/wins', { updateStrategy: 'last' }, { session: u.sessionToken }), 403, 1);
    const changed = await h().client.put('/1.1/leaderboard/leaderboards/wins', { updateStrategy: 'last', versionChangeInterval: 'day' }, M);
    assert.equal(changed.body.updateStrategy, 'last');
    assert.equal(changed.body.versionChangeInterval, 'day');
    assert.ok(new Date(changed.body.expiredAt.iso).getTime() - Date.now() <= 86_400_000);
    assertError(await h().client.put('/1.1/leaderboard/leaderboards/wins', { version: 9 }, M), 400, 1);

    const reset = await h().client.put('/1.1/leaderboard/leaderboards/wins/incrementVersion', undefined, M);
    assert.deepEqual(Object.keys(reset.body).sort(), ['activatedAt', 'expiredAt', 'objectId', 'updatedAt', 'version']);
    assert.equal(reset.body.version, 1);

    assertError(await h().client.delete('/1.1/leaderboard/leaderboards/plain', { session: u.sessionToken }), 403, 1);
    assert.deepEqual((await h().client.delete('/1.1/leaderboard/leaderboards/plain', M)).body, {});
    assertError(await h().client.get('/1.1/leaderboard/leaderboards/plain'), 404, 1);
  });

  test('update strategies: better (both orders), last, sum, overwrite; own statistics only', async () => {
    const [a, b] = await seedUsers(h(), 2);
    await board(h(), { statisticName: 'hi', order: 'descending', updateStrategy: 'better' });
    await board(h(), { statisticName: 'lap', order: 'ascending', updateStrategy: 'better' });
    await board(h(), { statisticName: 'latest', updateStrategy: 'last' });
    await board(h(), { statisticName: 'total', updateStrategy: 'sum' });
    const first = await post(h(), a, { hi: 10, lap: 60.5, latest: 5, total: 3 });
    assert.deepEqual(first.body, { results: [
      { statisticName: 'hi', statisticValue: 10, version: 0 },
      { statisticName: 'lap', statisticValue: 60.5, version: 0 },
      { statisticName: 'latest', statisticValue: 5, version: 0 },
      { statisticName: 'total', statisticValue: 3, version: 0 },
    ] });
    const second = await post(h(), a, { hi: 7, lap: 59, latest: 2, total: 4.5 });
    assert.deepEqual(second.body.results.map((r: { statisticValue: number }) => r.statisticValue), [10, 59, 2, 7.5]);
    const forced = await post(h(), a, { hi: 1 }, { overwrite: true, master: true });
    assert.equal(forced.body.results[0].statisticValue, 1);
    assertError(await post(h(), a, { hi: 100 }, { overwrite: true }), 403, 1);

    const mine = await h().client.get(`/1.1/leaderboard/users/${a.objectId}/statistics`, { statistics: 'hi,total' });
    assert.deepEqual(mine.body.results, [{ statisticName: 'hi', statisticValue: 1, version: 0 }, { statisticName: 'total', statisticValue: 7.5, version: 0 }]);
    const self = await h().client.get('/1.1/leaderboard/users/self/statistics', undefined, { session: a.sessionToken });
    assert.equal(self.body.results.length, 4);

    // Someone else's statistics: not without the master key; bad input is refused whole.
    assertError(await h().client.post(`/1.1/leaderboard/users/${a.objectId}/statistics`, [{ statisticName: 'hi', statisticValue: 99 }], { session: b.sessionToken }), 403, 206);
    assertError(await h().client.post(`/1.1/leaderboard/users/${a.objectId}/statistics`, [{ statisticName: 'hi', statisticValue: 99 }]), 403, 206);
    assertError(await post(h(), b, { hi: 1, nosuch: 2 }), 404, 1);
    assertError(await h().client.post(`/1.1/leaderboard/users/self/statistics`, [{ statisticName: 'hi', statisticValue: 'x' }], { session: b.sessionToken }), 400, 1);
    assertError(await h().client.post(`/1.1/leaderboard/users/self/statistics`, { statisticName: 'hi' }, { session: b.sessionToken }), 400, 1);
    assertError(await post(h(), { objectId: '000000000000000000000000', sessionToken: '' }, { hi: 1 }, { master: true }), 400, 211);
    assert.deepEqual((await h().client.get(`/1.1/leaderboard/users/${b.objectId}/statistics`)).body.results, []);

    assert.deepEqual((await h().client.delete(`/1.1/leaderboard/users/${a.objectId}/statistics`, { session: a.sessionToken, query: { statistics: 'hi,lap' } })).body, {});
    assert.deepEqual((await h().client.get(`/1.1/leaderboard/users/${a.objectId}/statistics`)).body.results.map((r: { statisticName: string }) => r.statisticName), ['latest', 'total']);
  });

  test('concurrent updates lose nothing: sums add up, better keeps the best', async () => {
    const [a] = await seedUsers(h(), 1);
    await board(h(), { statisticName: 'csum', updateStrategy: 'sum' });
    await board(h(), { statisticName: 'cbest', updateStrategy: 'better' });
    const values = Array.from({ length: 30 }, (_, i) => i + 1);
    const answers = await Promise.all(values.map((v) => post(h(), a, { csum: v, cbest: (v * 37) % 31 })));
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
    const stats = await h().client.get(`/1.1/leaderboard/users/${a.objectId}/statistics`, { statistics: 'csum,cbest' });
    assert.deepEqual(stats.body.results, [
      { statisticName: 'cbest', statisticValue: Math.max(...values.map((v) => (v * 37) % 31)), version: 0 },
      { statisticName: 'csum', statisticValue: values.reduce((x, y) => x + y, 0), version: 0 },
    ]);
  });

  test('rankings: order, skip/limit, count, selectUserKeys, includeStatistics, around a user', async () => {
    const users = await seedUsers(h(), 6);
    await board(h(), { statisticName: 'rk', order: 'descending' });
    await board(h(), { statisticName: 'rk2', order: 'ascending' });
    for (const [i, u] of users.entries()) await post(h(), u, { rk: [50, 90, 70, 90, 10, 30][i], ...(i % 2 === 0 ? { rk2: i } : {}) });
    // Ties rank by who reached the value first: users[1] before users[3].
    const top = await h().client.get('/1.1/leaderboard/leaderboards/rk/ranks', { count: 1 });
    assert.equal(top.body.count, 6);
    assert.deepEqual(top.body.results.map((r: { rank: number; statisticValue: number; user: { objectId: string } }) => [r.rank, r.statisticValue, r.user.objectId]), [
      [0, 90, users[1].objectId], [1, 90, users[3].objectId], [2, 70, users[2].objectId], [3, 50, users[0].objectId], [4, 30, users[5].objectId], [5, 10, users[4].objectId],
    ]);
    assert.deepEqual(top.body.results[0].user, { __type: 'Pointer', className: '_User', objectId: users[1].objectId });
    assert.equal(top.body.results[0].statisticName, 'rk');
    assert.equal(top.body.results[0].statistics, undefined);

    const page = await h().client.get('/1.1/leaderboard/leaderboards/rk/ranks', { skip: 2, limit: 2, selectUserKeys: 'username,password,sessionToken', includeStatistics: 'rk2' });
    assert.deepEqual(page.body.results.map((r: { rank: number }) => r.rank), [2, 3]);
    const u2 = page.body.results[0].user;
    assert.equal(u2.username, users[2].username);
    assert.equal(u2.password, undefined);
    assert.equal(u2.sessionToken, undefined);
    assert.deepEqual(page.body.results[0].statistics, [{ statisticName: 'rk2', statisticValue: 2, version: 0 }]);
    const p1 = await h().client.get('/1.1/leaderboard/leaderboards/rk/ranks', { limit: 1, includeStatistics: 'rk2' });
    assert.deepEqual(p1.body.results[0].statistics, [{ statisticName: 'rk2', statisticValue: null, version: null }]);
    assertError(await h().client.get('/1.1/leaderboard/leaderboards/rk/ranks', { includeStatistics: 'fake' }), 404, 1);

    const onlyCount = await h().client.get('/1.1/leaderboard/leaderboards/rk/ranks', { count: 1, limit: 0 });
    assert.deepEqual(onlyCount.body, { results: [], count: 6 });

    const around = await h().client.get(`/1.1/leaderboard/leaderboards/rk/ranks/${users[0].objectId}`, { limit: 3 });
    assert.deepEqual(around.body.results.map((r: { rank: number }) => r.rank), [2, 3, 4]);
    const self = await h().client.get('/1.1/leaderboard/leaderboards/rk/ranks/self', { limit: 3 }, { session: users[1].sessionToken });
    assert.deepEqual(self.body.results.map((r: { rank: number }) => r.rank), [0, 1, 2]);
    const last = await h().client.get(`/1.1/leaderboard/leaderboards/rk/ranks/${users[4].objectId}`, { limit: 4 });
    assert.deepEqual(last.body.results.map((r: { rank: number }) => r.rank), [2, 3, 4, 5]);
    const asc = await h().client.get('/1.1/leaderboard/leaderboards/rk2/ranks');
    assert.deepEqual(asc.body.results.map((r: { statisticValue: number }) => r.statisticValue), [0, 2, 4]);
    const [stranger] = await seedUsers(h(), 1);
    assert.deepEqual((await h().client.get(`/1.1/leaderboard/leaderboards/rk/ranks/${stranger.objectId}`)).body.results, []);

    // Changing the order flips the ranking.
    await h().client.put('/1.1/leaderboard/leaderboards/rk', { order: 'ascending' }, M);
    const flipped = await h().client.get('/1.1/leaderboard/leaderboards/rk/ranks', { limit: 2 });
    assert.deepEqual(flipped.body.results.map((r: { statisticValue: number }) => r.statisticValue), [10, 30]);
  });

  test('versions: a reset starts an empty version; the previous one stays queryable and archived as CSV', async () => {
    const [a, b] = await seedUsers(h(), 2);
    await board(h(), { statisticName: 'season', versionChangeInterval: 'never' });
    await post(h(), a, { season: 5 });
    await post(h(), b, { season: 8 });
    await h().client.put('/1.1/leaderboard/leaderboards/season/incrementVersion', undefined, M);
    assert.deepEqual((await h().client.get('/1.1/leaderboard/leaderboards/season/ranks')).body.results, []);
    const old = await h().client.get('/1.1/leaderboard/leaderboards/season/ranks', { version: 0 });
    assert.deepEqual(old.body.results.map((r: { statisticValue: number }) => r.statisticValue), [8, 5]);
    assert.equal((await post(h(), a, { season: 1 })).body.results[0].version, 1);
    await h().client.put('/1.1/leaderboard/leaderboards/season/incrementVersion', undefined, M);
    assertError(await h().client.get('/1.1/leaderboard/leaderboards/season/ranks', { version: 0 }), 400, 1);

    assertError(await h().client.get('/1.1/leaderboard/leaderboards/season/archives', undefined, { session: a.sessionToken }), 403, 1);
    const archives = await h().client.get('/1.1/leaderboard/leaderboards/season/archives', undefined, M);
    assert.deepEqual(archives.body.results.map((r: { version: number; status: string }) => [r.version, r.status]), [[1, 'completed'], [0, 'completed']]);
    const v0 = archives.body.results[1];
    assert.equal(v0.activatedAt.__type, 'Date');
    assert.equal(v0.deactivatedAt.__type, 'Date');
    const base = await h().listen();
    const csv = await fetch(v0.url.replace(/^https?:\/\/[^/]+/, base));
    assert.equal(csv.status, 200);
    const lines = (await csv.text()).trim().split('\n');
    assert.equal(lines[0], 'rank,objectId,statisticValue,updatedAt');
    assert.deepEqual(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(',')), [`0,${b.objectId},8`, `1,${a.objectId},5`]);
    assert.equal((await fetch(`${base}/leaderboard-archives/${'0'.repeat(24)}.csv`)).status, 404);
  });

  test('a daily leaderboard resets by itself when its day ends', async () => {
    const [a] = await seedUsers(h(), 1);
    const created = await board(h(), { statisticName: 'daily', versionChangeInterval: 'day' });
    await post(h(), a, { daily: 42 });
    const end = new Date(created.expiredAt.iso).getTime();
    h().app.clock = () => new Date(end + 3_600_000);
    try {
      const now = await h().client.get('/1.1/leaderboard/leaderboards/daily');
      assert.equal(now.body.version, 1);
      assert.equal(now.body.activatedAt.iso, created.expiredAt.iso);
      assert.equal(new Date(now.body.expiredAt.iso).getTime(), end + 86_400_000);
      assert.deepEqual((await h().client.get(`/1.1/leaderboard/users/${a.objectId}/statistics`)).body.results, []);
      assert.equal((await post(h(), a, { daily: 1 })).body.results[0].version, 1);
      const prev = await h().client.get('/1.1/leaderboard/leaderboards/daily/ranks', { version: 0 });
      assert.deepEqual(prev.body.results.map((r: { statisticValue: number }) => r.statisticValue), [42]);
    } finally {
      h().app.clock = undefined;
    }
  });
});
