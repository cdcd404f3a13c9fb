// Exchanges of the official JS SDK's recorded test traffic with the real LeanCloud server that
// Larder answered differently (issue 13): the exact shapes the real server gave.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { signUp } from './harness/user-helpers.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const LIKES = { __type: 'Relation', className: 'Post' } as const;

forEachEngine('recorded traffic of the JS SDK', (h) => {
  test('a Relation field shows its marker on every object of the class (GET, find, include, new=true, fetchWhenSave)', async () => {
    const c = h().client;
    const before = await c.post('/1.1/classes/Blog', { title: 'before the relation existed' });
    const post = await c.post('/1.1/classes/Post', { n: 1 });
    const withRel = await c.post('/1.1/classes/Blog', { title: 'liked', likes: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'Post', objectId: post.body.objectId }] } });
    assert.equal(withRel.status, 201, JSON.stringify(withRel.body));

    const got = await c.get(`/1.1/classes/Blog/${before.body.objectId}`);
    assert.deepEqual(got.body, { title: 'before the relation existed', likes: LIKES, objectId: before.body.objectId, createdAt: before.body.createdAt, updatedAt: before.body.createdAt });

    const found = await c.get('/1.1/classes/Blog', { order: 'createdAt' });
    assert.equal(found.body.results.length, 2);
    for (const o of found.body.results) assert.deepEqual(o.likes, LIKES, o.title);

    // Keys that leave the relation out leave its marker out too.
    const projected = await c.get('/1.1/classes/Blog', { keys: 'title' });
    for (const o of projected.body.results) assert.equal(o.likes, undefined);

    const created = await c.post('/1.1/classes/Blog', { title: 'new' }, { query: { new: 'true' } });
    assert.deepEqual(created.body, { title: 'new', likes: LIKES, objectId: created.body.objectId, createdAt: created.body.createdAt, updatedAt: created.body.createdAt });
    assert.match(created.body.createdAt, ISO);

    const updated = await c.put(`/1.1/classes/Blog/${before.body.objectId}`, { title: 'changed' }, { query: { fetchWhenSave: 'true' } });
    assert.deepEqual(updated.body, { title: 'changed', likes: LIKES, objectId: before.body.objectId, updatedAt: updated.body.updatedAt });
    const updatedNew = await c.put(`/1.1/classes/Blog/${before.body.objectId}`, { title: 'again' }, { query: { new: 'true' } });
    assert.deepEqual(updatedNew.body.likes, LIKES);

    const comment = await c.post('/1.1/classes/Comment', { blog: { __type: 'Pointer', className: 'Blog', objectId: before.body.objectId } });
    const inc = await c.get(`/1.1/classes/Comment/${comment.body.objectId}`, { include: 'blog' });
    assert.deepEqual(inc.body.blog.likes, LIKES);
    assert.equal(inc.body.blog.__type, 'Pointer');
    const incFind = await c.get('/1.1/classes/Comment', { include: 'blog' });
    assert.deepEqual(incFind.body.results[0].blog.likes, LIKES);

    // Batch answers carry it as well.
    const batch = await c.post('/1.1/batch', { requests: [{ method: 'GET', path: `/1.1/classes/Blog/${before.body.objectId}` }, { method: 'POST', path: '/1.1/classes/Blog', body: { t: 1 }, params: { new: true } }] });
    assert.deepEqual(batch.body[0].success.likes, LIKES);

    // The relation itself still lists its members and classes without it are unchanged.
    const members = await c.get('/1.1/classes/Post', { where: { $relatedTo: { object: { __type: 'Pointer', className: 'Blog', objectId: withRel.body.objectId }, key: 'likes' } } });
    assert.deepEqual(members.body.results.map((o: { objectId: string }) => o.objectId), [post.body.objectId]);
    const plain = await c.get(`/1.1/classes/Post/${post.body.objectId}`);
    assert.deepEqual(Object.keys(plain.body).sort(), ['createdAt', 'n', 'objectId', 'updatedAt']);
  });

  test('a class may have several GeoPoint fields; geo operators work on each', async () => {
    const c = h().client;
    const a = await c.post('/1.1/classes/Place', { location: { __type: 'GeoPoint', latitude: 10, longitude: 10 } });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    const b = await c.post('/1.1/classes/Place', { geo: { __type: 'GeoPoint', latitude: 40, longitude: 116 }, location: { __type: 'GeoPoint', latitude: -10, longitude: -10 } });
    assert.equal(b.status, 201, JSON.stringify(b.body));
    const schema = await c.get('/1.1/schemas/Place', undefined, { master: true });
    assert.equal(schema.body.location?.type ?? schema.body.fields?.location?.type, 'GeoPoint');
    assert.equal(schema.body.geo?.type ?? schema.body.fields?.geo?.type, 'GeoPoint');
    const nearGeo = await c.get('/1.1/classes/Place', { where: { geo: { $nearSphere: { __type: 'GeoPoint', latitude: 40.1, longitude: 116.1 }, $maxDistanceInKilometers: 50 } } });
    assert.deepEqual(nearGeo.body.results.map((o: { objectId: string }) => o.objectId), [b.body.objectId]);
    const nearLoc = await c.get('/1.1/classes/Place', { where: { location: { $nearSphere: { __type: 'GeoPoint', latitude: 10, longitude: 10 } } } });
    assert.deepEqual(nearLoc.body.results.map((o: { objectId: string }) => o.objectId), [a.body.objectId, b.body.objectId]);
    const box = await c.get('/1.1/classes/Place', { where: { location: { $within: { $box: [{ __type: 'GeoPoint', latitude: -20, longitude: -20 }, { __type: 'GeoPoint', latitude: 0, longitude: 0 }] } } } });
    assert.deepEqual(box.body.results.map((o: { objectId: string }) => o.objectId), [b.body.objectId]);
    // The type lock still applies to each of them.
    const wrong = await c.post('/1.1/classes/Place', { geo: 'not a point' });
    assert.equal(wrong.body.code, 111);
  });

  test('PUT /1.1/users/<id>/refreshSessionToken answers exactly {objectId, updatedAt, sessionToken}', async () => {
    const u = await signUp(h());
    const res = await h().client.put(`/1.1/users/${u.objectId}/refreshSessionToken`, undefined, { session: u.sessionToken });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { objectId: u.objectId, updatedAt: res.body.updatedAt, sessionToken: res.body.sessionToken });
    assert.match(res.body.updatedAt, ISO);
    assert.notEqual(res.body.sessionToken, u.sessionToken);
  });
});
