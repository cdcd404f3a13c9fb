import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

type Obj = Record<string, any>;

forEachEngine('query parameters over HTTP', (h) => {
  const ids: Record<string, string> = {};
  const find = async (cls: string, query: Record<string, unknown>, master = false) =>
    h().client.get(`/1.1/classes/${cls}`, query as Record<string, string>, { master });

  before(async () => {
    const c = h().client;
    for (const [name, nation] of [['Ann', 'fr'], ['Bob', 'de']]) {
      const r = await c.post('/1.1/classes/Author', { name, nation, meta: { born: 1900 } });
      ids[name] = r.body.objectId;
    }
    const ptr = (n: string) => ({ __type: 'Pointer', className: 'Author', objectId: ids[n] });
    const words = ['b', 'B', 'a', 'é', 'A', 'ab'];
    for (let i = 0; i < words.length; i++) {
      const r = await c.post('/1.1/classes/Book', {
        title: words[i], rank: i, author: ptr(i % 2 ? 'Bob' : 'Ann'), coauthors: [ptr('Ann'), ptr('Bob')],
        published: { __type: 'Date', iso: `200${i}-01-01T00:00:00.000Z` }, tags: i % 2 ? ['odd'] : ['even'],
      });
      ids[`book${i}`] = r.body.objectId;
    }
  });

  test('order by strings is byte-wise; several keys; descending', async () => {
    const res = await find('Book', { order: 'title' });
    assert.deepEqual(res.body.results.map((r: Obj) => r.title), ['A', 'B', 'a', 'ab', 'b', 'é']);
    const desc = await find('Book', { order: '-tags,rank' });
    assert.deepEqual(desc.body.results.map((r: Obj) => r.rank), [1, 3, 5, 0, 2, 4]);
  });

  test('limit rules: default 100, out of range gives 100, limit=0 with count', async () => {
    assert.equal((await find('Book', { limit: 2 })).body.results.length, 2);
    assert.equal((await find('Book', { limit: 5000 })).body.results.length, 6);
    // The spec: an out-of-range (or unreadable) limit gives the default 100, not an error.
    assert.equal((await find('Book', { limit: 'abc' })).body.results.length, 6);
    assert.equal((await find('Book', { limit: -3 })).body.results.length, 6);
    const counted = await find('Book', { limit: 0, count: 1 });
    assert.deepEqual(counted.body, { results: [], count: 6 });
    const skip = await find('Book', { order: 'rank', skip: 4 });
    assert.deepEqual(skip.body.results.map((r: Obj) => r.rank), [4, 5]);
  });

  test('keys selects, excludes, and reaches into sub-objects', async () => {
    const only = await find('Book', { keys: 'title', order: 'rank', limit: 1 });
    assert.deepEqual(Object.keys(only.body.results[0]).sort(), ['createdAt', 'objectId', 'title', 'updatedAt']);
    const minus = await find('Book', { keys: '-title,-createdAt', order: 'rank', limit: 1 });
    assert.equal('title' in minus.body.results[0], false);
    assert.equal('createdAt' in minus.body.results[0], false);
    assert.equal(minus.body.results[0].rank, 0);
    const sub = await find('Author', { keys: 'meta.born', where: { name: 'Ann' } });
    assert.deepEqual(sub.body.results[0].meta, { born: 1900 });
    assert.equal(sub.body.results[0].name, undefined);
  });

  test('include resolves pointers and arrays of pointers', async () => {
    const res = await find('Book', { include: 'author, coauthors', order: 'rank', limit: 2 });
    const [b0, b1] = res.body.results;
    assert.equal(b0.author.__type, 'Pointer');
    assert.equal(b0.author.className, 'Author');
    assert.equal(b0.author.name, 'Ann');
    assert.equal(b1.author.name, 'Bob');
    assert.deepEqual(b0.coauthors.map((a: Obj) => a.name), ['Ann', 'Bob']);
    const plain = await find('Book', { order: 'rank', limit: 1 });
    assert.deepEqual(Object.keys(plain.body.results[0].author).sort(), ['__type', 'className', 'objectId']);
    const got = await h().client.get(`/1.1/classes/Book/${ids.book0}`, { include: 'author' });
    assert.equal(got.body.author.nation, 'fr');
  });

  test('pointer equality, dates, where as an array, count with where', async () => {
    const ann = { __type: 'Pointer', className: 'Author', objectId: ids.Ann };
    assert.equal((await find('Book', { where: { author: ann }, count: 1, limit: 0 })).body.count, 3);
    const after = await find('Book', { where: { published: { $gte: { __type: 'Date', iso: '2004-01-01T00:00:00.000Z' } } }, order: 'rank' });
    assert.deepEqual(after.body.results.map((r: Obj) => r.rank), [4, 5]);
    assert.deepEqual(after.body.results[0].published, { __type: 'Date', iso: '2004-01-01T00:00:00.000Z' });
    const arr = await find('Book', { where: [{ tags: 'odd' }, { rank: { $gt: 1 } }], order: 'rank' });
    assert.deepEqual(arr.body.results.map((r: Obj) => r.rank), [3, 5]);
  });

  test('returnACL needs the app option (or the master key)', async () => {
    const res = await find('Book', { returnACL: 'true', limit: 1 });
    assert.equal(res.body.results[0].ACL, undefined);
    const master = await find('Book', { returnACL: 'true', limit: 1 }, true);
    assert.deepEqual(master.body.results[0].ACL, { '*': { read: true, write: true } });
    h().app.scope.replaceSettings({ ...h().app.settings, includeACLInQueries: true });
    try {
      const on = await find('Book', { returnACL: 'true', limit: 1 });
      assert.deepEqual(on.body.results[0].ACL, { '*': { read: true, write: true } });
    } finally {
      h().app.scope.replaceSettings({ ...h().app.settings, includeACLInQueries: false });
    }
  });

  test('relations: AddRelation, $relatedTo, redirectClassNameForKey, RemoveRelation', async () => {
    const c = h().client;
    const shelf = await c.post('/1.1/classes/Shelf', {
      books: { __op: 'AddRelation', objects: [ids.book0, ids.book1, ids.book2].map((objectId) => ({ __type: 'Pointer', className: 'Book', objectId })) },
    });
    assert.equal(shelf.status, 201);
    const got = await c.get(`/1.1/classes/Shelf/${shelf.body.objectId}`);
    assert.deepEqual(got.body.books, { __type: 'Relation', className: 'Book' });
    const owner = { __type: 'Pointer', className: 'Shelf', objectId: shelf.body.objectId };
    const related = await find('Book', { where: { $relatedTo: { object: owner, key: 'books' } }, order: 'rank' });
    assert.deepEqual(related.body.results.map((r: Obj) => r.rank), [0, 1, 2]);
    const redirected = await find('Shelf', { redirectClassNameForKey: 'books', where: { $relatedTo: { object: owner, key: 'books' } }, order: 'rank' });
    assert.equal(redirected.body.className, 'Book');
    assert.equal(redirected.body.results.length, 3);
    await c.put(`/1.1/classes/Shelf/${shelf.body.objectId}`, { books: { __op: 'RemoveRelation', objects: [{ __type: 'Pointer', className: 'Book', objectId: ids.book1 }] } });
    const after = await find('Book', { where: { $relatedTo: { object: owner, key: 'books' } }, order: 'rank' });
    assert.deepEqual(after.body.results.map((r: Obj) => r.rank), [0, 2]);
  });

  test('find on an unknown class is an empty result', async () => {
    const res = await find('NoSuchClassHere', { count: 1 });
    assert.deepEqual(res.body, { results: [], count: 0 });
  });
});
