import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine, TEST_KEYS } from './harness/engines.ts';
import { befriend, configurePresence, enableFriends } from './harness/presence-helpers.ts';
import { seedUser, seedUsers } from './harness/seed-users.ts';
import { assertError } from './harness/user-helpers.ts';

const CONFIG = '/friend/v1/rich-presence/config';
const BASE = '/friend/v2/rich-presence/config/base-info';
const LANG = '/friend/v1/rich-presence/config/lang-info';
const ME = '/friend/v1/rich-presence/users/me';
const USERS = '/friend/v1/rich-presence/users';

forEachEngine('friends rich presence', (h) => {
  let clockMs = Date.parse('2026-01-01T00:00:00Z');
  const advance = (ms: number) => (clockMs += ms);

  test('every endpoint refuses while richPresenceSync is off, naming the setting', async () => {
    const u = await seedUser(h());
    const calls = [
      h().client.get(CONFIG, undefined, { session: u.sessionToken }),
      h().client.post(BASE, { enableRichMsg: true }, { master: true }),
      h().client.post(LANG, { action: 'save', config: [] }, { master: true }),
      h().client.post(ME, { config: [{ key: 'a', value: 'b' }] }, { session: u.sessionToken }),
      h().client.get(USERS, { ids: u.objectId }, { session: u.sessionToken }),
    ];
    for (const res of await Promise.all(calls)) {
      assertError(res, 403, 1);
      assert.match(res.body.error, /richPresenceSync/);
      assert.match(res.body.error, /PUT \/1\.1\/larder\/settings/);
      assert.match(res.body.error, /larder settings set richPresenceSync true/);
    }
  });

  test('a missing header gets 400 {code:400}', async () => {
    h().app.clock = () => new Date(clockMs);
    await enableFriends(h());
    const u = await seedUser(h());
    const noId = await h().client.get(CONFIG, undefined, { auth: false, headers: { 'x-lc-key': TEST_KEYS.appKey, 'x-lc-session': u.sessionToken } });
    assertError(noId, 400, 400);
    assert.match(noId.body.error, /Missing request header: X-LC-Id/);
    const noKey = await h().client.get(CONFIG, undefined, { auth: false, headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-session': u.sessionToken } });
    assertError(noKey, 400, 400);
    const noSession = await h().client.get(CONFIG);
    assertError(noSession, 400, 400);
    assert.match(noSession.body.error, /X-LC-Session/);
    assertError(await h().client.post(ME, { config: [] }, { master: true }), 400, 400);
    assertError(await h().client.get(USERS, { ids: u.objectId }), 400, 400);
    // A wrong key is still an authentication failure, and a stale session is refused.
    assertError(await h().client.get(CONFIG, undefined, { auth: false, headers: { 'x-lc-id': TEST_KEYS.appId, 'x-lc-key': 'nope', 'x-lc-session': u.sessionToken } }), 401, 401);
    assertError(await h().client.get(CONFIG, undefined, { session: 'not-a-session' }), 401, 401);
  });

  test('GET config has every field of the spec, with defaults before any configuration', async () => {
    const u = await seedUser(h());
    const res = await h().client.get(CONFIG, undefined, { session: u.sessionToken, headers: { host: 'game.example.com' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      clientId: TEST_KEYS.appId,
      enabled: 1,
      richMsgEnabled: false,
      onlineMsgEnabled: false,
      webSocketUrl: 'ws://game.example.com/ws/leancloud/v1',
      richPresenceFields: [],
      richPresenceMultiLang: [],
    });
    // No proxy is trusted by default (LARDER_TRUST_PROXY): a client cannot pick the scheme.
    const forged = await h().client.get(CONFIG, undefined, { session: u.sessionToken, headers: { host: 'game.example.com', 'x-forwarded-proto': 'https' } });
    assert.equal(forged.body.webSocketUrl, 'ws://game.example.com/ws/leancloud/v1');
    const master = await h().client.get(CONFIG, undefined, { master: true });
    assert.equal(master.status, 200);
  });

  test('the WebSocket address can be configured, and is checked', async () => {
    const u = await seedUser(h());
    const bad = await h().client.put('/1.1/larder/settings', { friendsWebSocketUrl: 'http://x/ws' }, { master: true });
    assertError(bad, 400, 1);
    assertError(await h().client.put('/1.1/larder/settings', { friendsIdleTimeoutMs: 5 }, { master: true }), 400, 1);
    assertError(await h().client.put('/1.1/larder/settings', { friendsLeaseMs: 10 }, { master: true }), 400, 1);
    await h().client.put('/1.1/larder/settings', { friendsWebSocketUrl: 'wss://rt.example.com/friends/ws' }, { master: true });
    const res = await h().client.get(CONFIG, undefined, { session: u.sessionToken });
    assert.equal(res.body.webSocketUrl, 'wss://rt.example.com/friends/ws');
    await h().client.put('/1.1/larder/settings', { friendsWebSocketUrl: null }, { master: true });
  });

  test('base-info needs the master key and validates fields', async () => {
    const u = await seedUser(h());
    assertError(await h().client.post(BASE, { enableRichMsg: true }, { session: u.sessionToken }), 403, 1);
    assertError(await h().client.post(BASE, { richPresenceFields: [{ key: 'a', type: 'number' }] }, { master: true }), 400, 400);
    assertError(await h().client.post(BASE, { richPresenceFields: [{ key: 'a b', type: 'token' }] }, { master: true }), 400, 400);
    assertError(await h().client.post(BASE, { richPresenceFields: [{ key: 'a', type: 'token' }, { key: 'a', type: 'variable' }] }, { master: true }), 400, 400);
    assertError(await h().client.post(BASE, { enableRichMsg: 'yes' }, { master: true }), 400, 400);
    assertError(await h().client.post(BASE, [], { master: true }), 400, 400);
    const tooMany = Array.from({ length: 21 }, (_, i) => ({ key: `f${i}`, type: 'variable' }));
    const many = await h().client.post(BASE, { richPresenceFields: tooMany }, { master: true });
    assertError(many, 400, 400);
    assert.match(many.body.error, /at most 20/);
    const long = await h().client.post(BASE, { richPresenceFields: [{ key: 'k'.repeat(129), type: 'token' }] }, { master: true });
    assertError(long, 400, 400);
    assert.match(long.body.error, /128 bytes/);
    const res = await h().client.post(
      BASE,
      { enableRichMsg: true, enableOnlineMsg: true, richPresenceFields: [{ key: 'display', type: 'token' }, { key: 'score', type: 'variable' }, { key: 'rank', type: 'variable' }] },
      { master: true },
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { appId: TEST_KEYS.appId });
    const cfg = await h().client.get(CONFIG, undefined, { session: u.sessionToken });
    assert.equal(cfg.body.richMsgEnabled, true);
    assert.equal(cfg.body.onlineMsgEnabled, true);
    assert.deepEqual(cfg.body.richPresenceFields, [{ key: 'display', type: 'token' }, { key: 'score', type: 'variable' }, { key: 'rank', type: 'variable' }]);
  });

  test('lang-info saves, replaces and deletes texts; unknown actions are refused', async () => {
    const u = await seedUser(h());
    const save = (config: unknown[]) => h().client.post(LANG, { action: 'save', config }, { master: true });
    assertError(await h().client.post(LANG, { action: 'save', config: [{ key: 'display', lang: 'en_US', content: { '#a': 'A' } }] }, { session: u.sessionToken }), 403, 1);
    const unknown = await h().client.post(LANG, { action: 'update', config: [] }, { master: true });
    assertError(unknown, 400, 400);
    assert.match(unknown.body.error, /"update".*"save" or "delete"/);
    assertError(await h().client.post(LANG, { config: [] }, { master: true }), 400, 400);
    assertError(await save([{ key: 'display', lang: 'zh-CN', content: { '#a': 'A' } }]), 400, 400);
    assertError(await save([{ key: 'display', lang: 'zh_CN', content: { a: 'A' } }]), 400, 400);
    assertError(await save([{ key: 'display', lang: 'zh_CN', content: { '#a': 5 } }]), 400, 400);
    assertError(await save([{ key: 'nosuch', lang: 'zh_CN', content: { '#a': 'A' } }]), 400, 400);
    assertError(await save([{ key: 'score', lang: 'zh_CN', content: { '#a': 'A' } }]), 400, 400);
    assertError(await save([]), 400, 400);
    const ok = await save([
      { key: 'display', lang: 'zh_CN', content: { '#playing': '游戏中', '#score': '%score% 分,排名为 %rank%' } },
      { key: 'display', lang: 'en_US', content: { '#playing': 'Playing', '#score': '%score% points, rank %rank%' } },
      { key: 'display', lang: 'fr_FR', content: { '#playing': 'En jeu' } },
    ]);
    assert.deepEqual(ok.body, { appId: TEST_KEYS.appId });
    // save replaces the content of a (key, lang) as a whole.
    await save([{ key: 'display', lang: 'fr_FR', content: { '#idle': 'Inactif' } }]);
    const del = await h().client.post(LANG, { action: 'delete', config: [{ key: 'display', lang: 'fr_FR' }] }, { master: true });
    assert.deepEqual(del.body, { appId: TEST_KEYS.appId });
    const cfg = await h().client.get(CONFIG, undefined, { session: u.sessionToken });
    assert.deepEqual(cfg.body.richPresenceMultiLang, [
      { key: 'display', lang: 'en_US', content: { '#playing': 'Playing', '#score': '%score% points, rank %rank%' } },
      { key: 'display', lang: 'zh_CN', content: { '#playing': '游戏中', '#score': '%score% 分,排名为 %rank%' } },
    ]);
  });

  test('users/me validates against the declared fields and the §7.4 limits', async () => {
    const u = await seedUser(h());
    const set = (config: unknown) => h().client.post(ME, { config }, { session: u.sessionToken });
    const unknown = await set([{ key: 'level', value: '3' }]);
    assertError(unknown, 400, 400);
    assert.match(unknown.body.error, /not configured/);
    assertError(await set([{ key: 'display', value: 'playing' }]), 400, 400);
    assertError(await set([]), 400, 400);
    assertError(await set([{ key: 'score', value: 5 }]), 400, 400);
    assertError(await set([{ key: 'score', value: '1' }, { key: 'score', value: '2' }]), 400, 400);
    const many = await set(Array.from({ length: 21 }, (_, i) => ({ key: `f${i}`, value: 'x' })));
    assertError(many, 400, 400);
    assert.match(many.body.error, /at most 20/);
    const longKey = await set([{ key: 'k'.repeat(129), value: 'x' }]);
    assertError(longKey, 400, 400);
    assert.match(longKey.body.error, /key too long/);
    const longValue = await set([{ key: 'score', value: 'é'.repeat(129) }]);
    assertError(longValue, 400, 400);
    assert.match(longValue.body.error, /value too long.*258 bytes/);
    // Refused requests did not count against the rate limit.
    const ok = await set([{ key: 'display', value: '#playing' }, { key: 'score', value: '15' }]);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('setting and clearing are each limited to once per 30 s (app clock)', async () => {
    const u = await seedUser(h());
    const set = (config: unknown) => h().client.post(ME, { config }, { session: u.sessionToken });
    assert.equal((await set([{ key: 'score', value: '1' }])).status, 200);
    advance(10_000);
    const again = await set([{ key: 'score', value: '2' }]);
    assertError(again, 429, 429);
    assert.match(again.body.error, /once per 30 seconds/);
    // Clearing has its own allowance.
    assert.equal((await set([{ key: 'score', value: '' }])).status, 200);
    assertError(await set([{ key: 'rank', value: '' }]), 429, 429);
    advance(20_000);
    assert.equal((await set([{ key: 'score', value: '3' }])).status, 200);
    const mine = await h().client.get(USERS, { ids: u.objectId }, { session: u.sessionToken });
    assert.deepEqual(mine.body.results, [{ online: false, richPresence: { score: '3' } }]);
  });

  test('GET users: one entry per id in request order, localized, visible to friends only (richPresenceAudience friends)', async () => {
    advance(60_000);
    assert.equal((await h().client.put('/1.1/larder/settings', { richPresenceAudience: 'friends' }, { master: true })).status, 200);
    const [me, friend, other] = await seedUsers(h(), 3);
    await befriend(h(), me.objectId, friend.objectId);
    const setAs = (s: string, config: unknown) => h().client.post(ME, { config }, { session: s });
    assert.equal((await setAs(friend.sessionToken, [{ key: 'display', value: '#score' }, { key: 'score', value: '15' }, { key: 'rank', value: '150' }])).status, 200);
    assert.equal((await setAs(other.sessionToken, [{ key: 'display', value: '#playing' }])).status, 200);
    assert.equal((await setAs(me.sessionToken, [{ key: 'display', value: '#unknownToken' }])).status, 200);
    const get = (ids: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
      h().client.get(USERS, { ids, ...query }, { session: me.sessionToken, headers });

    const res = await get(`${friend.objectId},nosuchuser,${other.objectId},${me.objectId},${friend.objectId}`, { lang: 'zh_CN' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.results, [
      { online: false, richPresence: { display: '15 分,排名为 150', score: '15', rank: '150' } },
      { online: false, richPresence: {} },
      // Not a friend: indistinguishable from a silent user.
      { online: false, richPresence: {} },
      // No text for the token: "".
      { online: false, richPresence: { display: '' } },
      { online: false, richPresence: { display: '15 分,排名为 150', score: '15', rank: '150' } },
    ]);
    const braces = await get(`{${friend.objectId},${me.objectId}}`, {}, { 'accept-language': 'fr-FR;q=0.9, zh-TW;q=0.8' });
    assert.equal(braces.body.results.length, 2);
    // fr has no text for #score; zh_TW falls back to zh_CN (same language).
    assert.equal(braces.body.results[0].richPresence.display, '15 分,排名为 150');
    const dflt = await get(friend.objectId);
    assert.equal(dflt.body.results[0].richPresence.display, '15 points, rank 150');
    const param = await get(friend.objectId, { lang: 'en-us' }, { 'accept-language': 'zh-CN' });
    assert.equal(param.body.results[0].richPresence.display, '15 points, rank 150');
    const none = await get(friend.objectId, { lang: 'de_DE' });
    assert.equal(none.body.results[0].richPresence.display, '');

    const master = await h().client.get(USERS, { ids: other.objectId, lang: 'en_US' }, { master: true });
    assert.deepEqual(master.body.results, [{ online: false, richPresence: { display: 'Playing' } }]);
    assert.equal((await h().client.put('/1.1/larder/settings', { richPresenceAudience: null }, { master: true })).status, 200);
  });

  test('GET users: by default (richPresenceAudience users) any signed-in user reads anyone, except across a block', async () => {
    advance(60_000);
    const settings = await h().client.get('/1.1/larder/settings', undefined, { master: true });
    assert.equal(settings.body.richPresenceAudience, 'users');
    assertError(await h().client.put('/1.1/larder/settings', { richPresenceAudience: 'everyone' }, { master: true }), 400, 1);
    const [me, stranger, blocker] = await seedUsers(h(), 3);
    for (const u of [stranger, blocker]) {
      assert.equal((await h().client.post(ME, { config: [{ key: 'score', value: '7' }] }, { session: u.sessionToken })).status, 200);
    }
    const read = () => h().client.get(USERS, { ids: `${stranger.objectId},${blocker.objectId}` }, { session: me.sessionToken });
    assert.deepEqual((await read()).body.results, [{ online: false, richPresence: { score: '7' } }, { online: false, richPresence: { score: '7' } }]);
    const blocked = await h().client.post(`/1.1/users/self/friendBlocklist/${me.objectId}`, {}, { session: blocker.sessionToken });
    assert.equal(blocked.status, 200, JSON.stringify(blocked.body));
    assert.deepEqual((await read()).body.results, [{ online: false, richPresence: { score: '7' } }, { online: false, richPresence: {} }]);
    const back = await h().client.get(USERS, { ids: me.objectId }, { session: blocker.sessionToken });
    assert.equal(back.status, 200);
  });

  test('GET users: ids are required, checked and limited to 100', async () => {
    const u = await seedUser(h());
    assertError(await h().client.get(USERS, {}, { session: u.sessionToken }), 400, 400);
    assertError(await h().client.get(USERS, { ids: '{}' }, { session: u.sessionToken }), 400, 400);
    assertError(await h().client.get(USERS, { ids: 'a,b;drop' }, { session: u.sessionToken }), 400, 400);
    const ids = Array.from({ length: 101 }, (_, i) => `id${i}`).join(',');
    const many = await h().client.get(USERS, { ids }, { session: u.sessionToken });
    assertError(many, 400, 400);
    assert.match(many.body.error, /at most 100/);
    const hundred = await h().client.get(USERS, { ids: Array.from({ length: 100 }, (_, i) => `id${i}`).join(',') }, { session: u.sessionToken });
    assert.equal(hundred.body.results.length, 100);
  });
});
