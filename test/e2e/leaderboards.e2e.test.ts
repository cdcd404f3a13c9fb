// The official JS SDK's AV.Leaderboard against Larder, along the lines of the SDK's own test:
// management with the master key, statistics of signed-up users, rankings and archives.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { AV, forEachEngineWithSdk, rejectsWithCode } from './sdk.ts';

forEachEngineWithSdk('e2e leaderboards (AV.Leaderboard)', () => {
  const name = `score_${Date.now()}`;
  const name2 = `${name}_2`;
  let leaderboard: AV.Leaderboard;
  let users: AV.User[] = [];

  before(async () => {
    leaderboard = await AV.Leaderboard.createLeaderboard(
      { statisticName: name, order: AV.LeaderboardOrder.ASCENDING, updateStrategy: AV.LeaderboardUpdateStrategy.BETTER, versionChangeInterval: AV.LeaderboardVersionChangeInterval.WEEK },
      { useMasterKey: true },
    );
    await AV.Leaderboard.createLeaderboard(
      { statisticName: name2, order: AV.LeaderboardOrder.ASCENDING, updateStrategy: AV.LeaderboardUpdateStrategy.BETTER, versionChangeInterval: AV.LeaderboardVersionChangeInterval.NEVER },
      { useMasterKey: true },
    );
    users = [];
    for (const i of [0, 1, 2, 3]) users.push(await AV.User.signUp(`lb${Date.now()}${i}`, 'pw-lb-1'));
    for (const [i, user] of users.entries()) await AV.Leaderboard.updateStatistics(user, { [name]: i, [name2]: -i }, { user } as AV.AuthOptions);
  });

  test('properties, fetch and master-key mutations', async () => {
    assert.ok(leaderboard instanceof AV.Leaderboard);
    assert.equal(leaderboard.statisticName, name);
    assert.equal(leaderboard.order, AV.LeaderboardOrder.ASCENDING);
    assert.equal(leaderboard.updateStrategy, AV.LeaderboardUpdateStrategy.BETTER);
    assert.equal(leaderboard.versionChangeInterval, AV.LeaderboardVersionChangeInterval.WEEK);
    assert.equal(leaderboard.version, 0);
    assert.ok(leaderboard.nextResetAt instanceof Date);
    const fetched = await AV.Leaderboard.getLeaderboard(name);
    assert.equal(fetched.statisticName, name);
    assert.ok(fetched.nextResetAt instanceof Date);
    await rejectsWithCode(leaderboard.updateVersionChangeInterval(AV.LeaderboardVersionChangeInterval.NEVER), 1);
    const daily = await leaderboard.updateVersionChangeInterval(AV.LeaderboardVersionChangeInterval.DAY, { useMasterKey: true });
    assert.equal(daily.versionChangeInterval, AV.LeaderboardVersionChangeInterval.DAY);
    const last = await leaderboard.updateUpdateStrategy(AV.LeaderboardUpdateStrategy.LAST, { useMasterKey: true });
    assert.equal(last.updateStrategy, AV.LeaderboardUpdateStrategy.LAST);
    assert.deepEqual(await leaderboard.getArchives({}, { useMasterKey: true }), [] as unknown);
  });

  test('statistics of a user', async () => {
    // The SDK's typings leave out the options argument; its code takes (user, options, authOptions).
    const getStatistics = AV.Leaderboard.getStatistics as unknown as (u: AV.User, o: undefined, a: AV.AuthOptions) => Promise<{ name: string; value: number; version?: number }[]>;
    const stats = await getStatistics(users[2], undefined, { user: users[2] } as AV.AuthOptions);
    const mine = stats.find((s) => s.name === name);
    assert.equal(mine?.value, 2);
    assert.equal(mine?.version, 0);
  });

  test('getResults with selectUserKeys and includeStatistics; count', async () => {
    const rankings = await leaderboard.getResults({ selectUserKeys: ['username'], includeStatistics: [name2] });
    assert.deepEqual(rankings.map((r) => r.rank), [0, 1, 2, 3]);
    assert.equal(rankings[2].value, 2);
    assert.equal(rankings[2].user.get('username'), users[2].get('username'));
    assert.equal(rankings[2].includedStatistics?.[0].name, name2);
    assert.equal(rankings[2].includedStatistics?.[0].value, -2);
    await rejectsWithCode(leaderboard.getResults({ includeStatistics: ['fake'] }), 1);
    assert.equal(await leaderboard.count(), 4);
    const page = await leaderboard.getResults({ skip: 1, limit: 2 });
    assert.deepEqual(page.map((r) => r.rank), [1, 2]);
  });

  test('results around the current user and around another user', async () => {
    const around = await leaderboard.getResultsAroundUser({ limit: 3 }, { user: users[2] } as AV.AuthOptions);
    assert.deepEqual(around.map((r) => r.rank), [1, 2, 3]);
    assert.equal(around[1].value, 2);
    assert.equal(around[1].user.get('username'), undefined);
    const other = await leaderboard.getResultsAroundUser(users[1], { limit: 3 }, { user: users[2] } as AV.AuthOptions);
    assert.deepEqual(other.map((r) => r.rank), [0, 1, 2]);
    assert.equal(other[1].value, 1);
  });

  test('delete statistics, reset, archives, destroy', async () => {
    await AV.Leaderboard.deleteStatistics(users[2], [name], { user: users[2] } as AV.AuthOptions);
    assert.equal((await leaderboard.getResults()).length, 3);
    const reset = await leaderboard.reset({ useMasterKey: true });
    assert.equal(reset.version, 1);
    assert.deepEqual(await leaderboard.getResults(), []);
    const previous = await leaderboard.getResults({ version: 0 });
    assert.equal(previous.length, 3);
    // The SDK's typings say one archive; its code resolves with an array.
    const archives = (await leaderboard.getArchives({}, { useMasterKey: true })) as unknown as { version: number; activatedAt: Date; deactivatedAt: Date; url: string }[];
    assert.equal(archives.length, 1);
    assert.equal(archives[0].version, 0);
    assert.ok(archives[0].activatedAt instanceof Date && archives[0].deactivatedAt instanceof Date);
    assert.match(archives[0].url, /\/leaderboard-archives\/[0-9a-f]{24}\.csv$/);
    await leaderboard.destroy({ useMasterKey: true });
    await rejectsWithCode(AV.Leaderboard.getLeaderboard(name), 1);
  });
});
