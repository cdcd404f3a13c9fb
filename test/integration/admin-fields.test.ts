// POST /1.1/larder/classes/<className>/fields (the console's "add field"): the type is locked as
// a first write would lock it; bad input gets its error and changes nothing. The console page
// itself: served with its CSP, no other file reachable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';

forEachEngine('admin: add a field', (h) => {
  const add = (className: string, body: unknown, master = true) =>
    h().client.request({ method: 'POST', url: `/1.1/larder/classes/${className}/fields`, body, master });

  test('declares a field on a new class; later writes of another type get 111', async () => {
    const res = await add('Fresh', { name: 'score', type: 'Number' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.score, { type: 'Number' });
    const wrong = await h().client.request({ method: 'POST', url: '/1.1/classes/Fresh', body: { score: 'high' } });
    assert.equal(wrong.body.code, 111);
    const ptr = await add('Fresh', { name: 'owner', type: 'Pointer', className: '_User' });
    assert.deepEqual(ptr.body.owner, { type: 'Pointer', className: '_User' });
  });

  test('bad input: named error, nothing declared', async () => {
    const cases: [unknown, number][] = [
      [{ name: 'objectId', type: 'String' }, 105],
      [{ name: '_hidden', type: 'String' }, 105],
      [{ name: 'a.b', type: 'String' }, 105],
      [{ name: 'x', type: 'ACL' }, 111],
      [{ name: 'x', type: 'Pointer' }, 107],
      [{ name: 'x', type: 'String', className: 'Post' }, 107],
      [{ name: 'x', type: 'Pointer', className: 'bad name' }, 103],
      [{ name: 'x', type: 'String', extra: 1 }, 107],
      [['x'], 107],
    ];
    for (const [body, code] of cases) {
      const res = await add('Fresh2', body);
      assert.equal(res.status, code === 101 ? 404 : 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.code, code, JSON.stringify(body));
    }
    assert.equal((await add('Fresh', { name: 'score', type: 'String' })).body.code, 111);
    assert.equal((await add('_User', { name: 'username', type: 'Number' })).body.code, 111);
    assert.equal((await add('bad-name', { name: 'x', type: 'String' })).body.code, 103);
    const schema = await h().client.request({ url: '/1.1/schemas/Fresh2', master: true });
    assert.equal(schema.status, 404);
  });

  test('master key only', async () => {
    const res = await add('Fresh3', { name: 'x', type: 'String' }, false);
    assert.equal(res.status, 403);
  });

  test('the console page and its modules carry the CSP; unknown files are 404', async () => {
    const page = await h().client.request({ url: '/console', auth: false });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
    const js = await h().client.request({ url: '/console/app.js', auth: false });
    assert.match(String(js.headers['content-type']), /text\/javascript/);
    for (const url of ['/console/..%2Fpackage.json', '/console/nope.js', '/console/%2e%2e%2fsrc%2fmain.ts']) {
      assert.equal((await h().client.request({ url, auth: false })).status, 404, url);
    }
  });
});
