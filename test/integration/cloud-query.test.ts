// CQL over HTTP (GET /1.1/cloudQuery): results, count, include, keys, placeholders, ACLs,
// class permissions, hidden fields, limits and syntax errors, on every engine.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { assertError, signUp, type SignedUpUser } from './harness/user-helpers.ts';

interface Row {
  objectId: string;
  name?: string;
  score?: number;
}

const names = (body: { results: Row[] }) => body.results.map((r) => r.name);

forEachEngine('CQL: GET /1.1/cloudQuery', (h) => {
  let owner: SignedUpUser;
  let postId = '';

  const cql = (statement: string, pvalues?: unknown[], extra: { session?: string; master?: boolean } = {}) =>
    h().client.get('/1.1/cloudQuery', { cql: statement, ...(pvalues ? { pvalues: JSON.stringify(pvalues) } : {}) }, extra);

  before(async () => {
    const c = h().client;
    owner = await signUp(h());
    const post = await c.post('/1.1/classes/Post', { title: 'hello', image: 'x.png' });
    postId = post.body.objectId;
    await c.post('/1.1/classes/Post', { title: 'no image' });
    const ptr = { __type: 'Pointer', className: 'Post', objectId: postId };
    const rows = [
      { name: 'dennis', score: 90, scores: [100, 100], loc: { __type: 'GeoPoint', latitude: 39.9, longitude: 116.4 }, post: ptr },
      { name: 'catty', score: 70, scores: [100], loc: { __type: 'GeoPoint', latitude: 39.95, longitude: 116.35 } },
      { name: 'green', score: 85, scores: [] },
      { name: 'Dennis Jr', score: 0 },
      { name: 'line1\nline2', score: 5 },
    ];
    for (const r of rows) assert.equal((await c.post('/1.1/classes/GameScore', r)).status, 201);
    // Readable only by its owner: never seen by anyone else, through CQL or otherwise.
    const secret = await c.post('/1.1/classes/GameScore', { name: 'secret', score: 99, ACL: { [owner.objectId]: { read: true, write: true } } });
    assert.equal(secret.status, 201);
  });

  test('select with where, order and limit in either position', async () => {
    const a = await cql("select * from GameScore where score > 80 and score <= 100 order by score desc");
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.className, 'GameScore');
    assert.deepEqual(names(a.body), ['dennis', 'green']);
    assert.equal(a.body.count, undefined);
    const b = await cql('select * from GameScore limit 1,2 order by -score');
    assert.deepEqual(names(b.body), ['green', 'catty']);
    const c = await cql('select * from GameScore order by score limit 2');
    assert.deepEqual(names(c.body), ['Dennis Jr', 'line1\nline2']);
    const d = await cql("select * from GameScore where score>80 and score<=100 or score=0 order by name");
    assert.deepEqual(names(d.body), ['Dennis Jr', 'dennis', 'green']);
  });

  test('count, count with objects, selected keys', async () => {
    const only = await cql('select count(*) from GameScore where score >= 70');
    assert.deepEqual(only.body, { results: [], className: 'GameScore', count: 3 });
    const both = await cql('select count(objectId), * from GameScore where score >= 85 order by score');
    assert.equal(both.body.count, 2);
    assert.deepEqual(names(both.body), ['green', 'dennis']);
    const keys = await cql("select name from GameScore where name = 'dennis'");
    assert.deepEqual(Object.keys(keys.body.results[0]).sort(), ['createdAt', 'name', 'objectId', 'updatedAt']);
  });

  test('like, regexp and their negations; in, not in; exists; arrays', async () => {
    assert.deepEqual(names((await cql("select * from GameScore where name like 'denn%' order by name")).body), ['dennis']);
    assert.deepEqual(names((await cql("select * from GameScore where name like '%line2'")).body), ['line1\nline2'], '% spans newlines');
    assert.deepEqual(names((await cql("select * from GameScore where name regexp '^[dD]enn' order by name")).body), ['Dennis Jr', 'dennis']);
    assert.deepEqual(names((await cql("select * from GameScore where name not like 'd%' and score > 50 order by name")).body), ['catty', 'green']);
    assert.deepEqual(names((await cql("select * from GameScore where name not regexp '^[a-z]' order by name")).body), ['Dennis Jr']);
    assert.deepEqual(names((await cql("select * from GameScore where name in ('dennis','catty','nobody') order by name")).body), ['catty', 'dennis']);
    assert.deepEqual(names((await cql("select * from GameScore where name not in ('dennis','catty') and score > 50")).body), ['green']);
    assert.deepEqual(names((await cql('select * from GameScore where post is exists')).body), ['dennis']);
    assert.equal((await cql('select count(*) from GameScore where scores is not exists')).body.count, 2);
    assert.deepEqual(names((await cql('select * from GameScore where scores = 100 order by name')).body), ['catty', 'dennis']);
    assert.deepEqual(names((await cql('select * from GameScore where scores all (100, 100)')).body), ['dennis', 'catty']);
    assert.deepEqual(names((await cql('select * from GameScore where size(scores) = 0')).body), ['green']);
  });

  test('pointers, sub-queries, include, related', async () => {
    const byPtr = await cql(`select * from GameScore where post = pointer('Post', '${postId}')`);
    assert.deepEqual(names(byPtr.body), ['dennis']);
    const inQuery = await cql('select * from GameScore where post in (select * from Post where image is exists)');
    assert.deepEqual(names(inQuery.body), ['dennis']);
    const notInQuery = await cql("select count(*) from GameScore where post not in (select * from Post where title = 'hello')");
    assert.equal(notInQuery.body.count, 4);
    const sel = await cql("select * from Post where title = (select name from GameScore where score = 90)");
    assert.deepEqual(sel.body.results, []);
    await h().client.post('/1.1/classes/Alias', { name: 'green' });
    await h().client.post('/1.1/classes/Alias', { name: 'other' });
    const inSelect = await cql('select * from Alias where name in (select name from GameScore where score > 80)');
    assert.deepEqual(names(inSelect.body), ['green']);
    const dont = await cql('select * from Alias where name != (select name from GameScore where score > 80)');
    assert.deepEqual(names(dont.body), ['other']);
    const inc = await cql("select include post, name from GameScore where name = 'dennis'");
    assert.equal(inc.body.results[0].post.title, 'hello');
    assert.equal(inc.body.results[0].score, undefined);
    const liker = await h().client.post('/1.1/classes/Liker', { likes: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'Post', objectId: postId }] } });
    const related = await cql(`select * from Post where related likes to pointer('Liker', '${liker.body.objectId}')`);
    assert.deepEqual(related.body.results.map((r: Row) => r.objectId), [postId]);
  });

  test('geo: near with distances, within a box', async () => {
    const near = await cql('select * from GameScore where loc near [116.4, 39.9]');
    assert.deepEqual(names(near.body), ['dennis', 'catty']);
    const max = await cql('select * from GameScore where loc near geopoint(116.4, 39.9) max 1 km');
    assert.deepEqual(names(max.body), ['dennis']);
    const min = await cql('select * from GameScore where loc near geopoint(116.4, 39.9) min 1 km max 100 km');
    assert.deepEqual(names(min.body), ['catty']);
    const box = await cql('select * from GameScore where loc within [116.3, 39.92] and [116.38, 39.99]');
    assert.deepEqual(names(box.body), ['catty']);
  });

  test('placeholders: values, dates, geo points and limit', async () => {
    const res = await cql('select * from GameScore where name = ? and score > ? limit ?, ?', ['dennis', 10, 0, 5]);
    assert.deepEqual(names(res.body), ['dennis']);
    const dated = await cql('select count(*) from GameScore where createdAt < ?', [{ __type: 'Date', iso: '2100-01-01T00:00:00.000Z' }]);
    assert.equal(dated.body.count, 5);
    const early = await cql("select count(*) from GameScore where createdAt < date('2000-01-01T00:00:00.000Z')");
    assert.equal(early.body.count, 0);
    const geo = await cql('select * from GameScore where loc near ? max ? km', [{ __type: 'GeoPoint', latitude: 39.9, longitude: 116.4 }, 1]);
    assert.deepEqual(names(geo.body), ['dennis']);
    assertError(await cql('select * from GameScore where name = ?'), 400, 300);
    assertError(await cql('select * from GameScore where name = ?', ['a', 'b']), 400, 300);
    assertError(await h().client.get('/1.1/cloudQuery', { cql: 'select * from GameScore', pvalues: '{"a":1}' }), 400, 107);
    assertError(await h().client.get('/1.1/cloudQuery', { cql: 'select * from GameScore', pvalues: '[1' }), 400, 107);
  });

  test('ACLs, class permissions and hidden fields apply as to any query', async () => {
    const anon = await cql("select * from GameScore where name = 'secret'");
    assert.deepEqual(anon.body.results, []);
    const mine = await cql("select * from GameScore where name = 'secret'", undefined, { session: owner.sessionToken });
    assert.deepEqual(names(mine.body), ['secret']);
    const master = await cql('select count(*) from GameScore', undefined, { master: true });
    assert.equal(master.body.count, 6);
    // _User answers CQL exactly as it answers the REST query (class permissions, hidden fields).
    for (const where of [{ sessionToken: owner.sessionToken }, { objectId: owner.objectId }]) {
      const [k, v] = Object.entries(where)[0];
      const viaCql = await cql(`select * from _User where ${k} = '${v}'`, undefined, { session: owner.sessionToken });
      const viaRest = await h().client.get('/1.1/classes/_User', { where }, { session: owner.sessionToken });
      assert.deepEqual([viaCql.status, viaCql.body], [viaRest.status, viaRest.body]);
    }
    const byMaster = await cql(`select * from _User where sessionToken = '${owner.sessionToken}'`, undefined, { master: true });
    assert.deepEqual(byMaster.body.results.map((u: Row) => u.objectId), [owner.objectId]);
    // Class permissions: a class closed for find is closed for CQL too.
    await h().client.post('/1.1/classes/Closed', { a: 1 });
    const perm = await h().client.put('/1.1/larder/classes/Closed/permissions', { find: { users: [], roles: [] } }, { master: true });
    assert.equal(perm.status, 200, JSON.stringify(perm.body));
    const closed = await cql('select * from Closed');
    assertError(closed, 403, 1);
    assert.deepEqual(closed.body, (await h().client.get('/1.1/classes/Closed')).body);
    assert.equal((await cql('select count(*) from Closed', undefined, { master: true })).body.count, 1);
  });

  test('limits: default 100 and at most 1000, as REST queries; unknown class is empty', async () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ method: 'POST', path: '/1.1/classes/Many', body: { i } }));
    assert.equal((await h().client.post('/1.1/batch', { requests: many })).status, 200);
    assert.equal((await cql('select * from Many')).body.results.length, 100);
    assert.equal((await cql('select * from Many limit 110')).body.results.length, 110);
    assert.equal((await cql('select * from Many limit 100, 1000')).body.results.length, 20);
    assert.deepEqual((await cql('select * from NoSuchClass')).body, { results: [], className: 'NoSuchClass' });
  });

  test('syntax errors: 300 with the position; statement length; bad names', async () => {
    const err = await cql('select * from GameScore where score >');
    assertError(err, 400, 300);
    assert.match(err.body.error, /position 38: expected a value, found the end of the statement/);
    assert.match((await cql('select * form GameScore')).body.error, /position 10: expected 'from'/);
    assertError(await cql(`select * from GameScore where name = '${'x'.repeat(4100)}'`), 400, 300);
    assertError(await h().client.get('/1.1/cloudQuery'), 400, 300);
    assertError(await cql("delete from GameScore where objectId = 'x'"), 400, 300);
    assertError(await cql('select * from pg_user'), 400, 103);
    assertError(await cql('select * from _larder_meta'), 400, 103);
    assertError(await cql('select * from GameScore where post in (select * from _larder_meta)'), 400, 103);
    assertError(await cql("select * from GameScore where name regexp '(a'"), 400, 102);
    assertError(await cql('select * from GameScore where `a$b` = 1'), 400, 105);
    assertError(await cql('select `__proto__` from GameScore'), 400, 105);
  });
});
