import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { AV, pointSdkAt } from '../e2e/sdk.ts';
import { forEachEngine } from './harness/engines.ts';

type Obj = Record<string, any>;
const URL_A = 'https://cdn.example.com/pics/a.png';

forEachEngine('files: the class of files', (h) => {
  const internalId = '000000000000000000f11e01';

  before(async () => {
    // An internal (uploaded) file as imported from LeanCloud: it has a key; written directly,
    // as an import does (its bytes are still on LeanCloud: `larder files pull` fetches them).
    const data = { name: 'inside.txt', key: 'abc/inside.txt', url: 'https://files.example.com/abc/inside.txt', mime_type: 'text/plain', bucket: 'b1', metaData: { size: 3, owner: 'unknown' } };
    await h().db.query(sql`INSERT INTO "_File" ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
      VALUES (${internalId}, now(), now(), ${JSON.stringify({ '*': { read: true, write: true } })}::jsonb, ${['*']}::text[], ${['*']}::text[], ${JSON.stringify(data)}::jsonb)`);
  });

  test('POST /1.1/files as AV.File.withURL(name, url).save() sends it creates an external file', async () => {
    const res = await h().client.post('/1.1/files', { name: 'a.png', metaData: { owner: 'unknown', __source: 'external', size: 0 }, url: URL_A });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'objectId']);
    assert.match(String(res.headers.location), new RegExp(`/1.1/files/${res.body.objectId}$`));
    const got = await h().client.get(`/1.1/files/${res.body.objectId}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.name, 'a.png');
    assert.equal(got.body.url, URL_A);
    assert.equal(got.body.mime_type, 'image/png');
    assert.deepEqual(got.body.metaData, { owner: 'unknown', __source: 'external', size: 0 });
    assert.equal(got.body.objectId, res.body.objectId);
  });

  test('mime_type and ACL are kept when given; a private file is hidden from others', async () => {
    const res = await h().client.post('/1.1/files', { name: 'doc', url: 'https://x.example.com/d', mime_type: 'application/x-custom', ACL: {}, metaData: { extra: 1 } });
    assert.equal(res.status, 201);
    const master = await h().client.get(`/1.1/files/${res.body.objectId}`, undefined, { master: true });
    assert.equal(master.body.mime_type, 'application/x-custom');
    assert.deepEqual(master.body.metaData, { owner: 'unknown', size: 0, extra: 1, __source: 'external' });
    const anon = await h().client.get(`/1.1/files/${res.body.objectId}`);
    assert.equal(anon.status, 400);
    const del = await h().client.delete(`/1.1/files/${res.body.objectId}`);
    assert.deepEqual([del.status, del.body.code], [403, 1]);
  });

  test('bad file bodies are refused and nothing is written', async () => {
    const before = (await h().client.get('/1.1/classes/_File', { count: 1, limit: 0 })).body.count;
    const cases: [unknown, number][] = [
      [{ name: 'a' }, 1],
      [{ name: 'a', url: 'ftp://x.example.com/a' }, 1],
      [{ name: 'a', url: 'not a url' }, 1],
      [{ name: '', url: URL_A }, 1],
      [{ name: 'a', url: URL_A, metaData: [1] }, 1],
      [{ name: 'a', url: URL_A, mime_type: 5 }, 1],
      [{ name: 'a', url: URL_A, color: 'red' }, 105],
      [{ name: 'a', url: URL_A, ACL: { '*': { read: 'yes' } } }, 123],
      [{ name: 'a', url: URL_A, metaData: { 'a.b': 1 } }, 121],
      [['x'], 107],
    ];
    for (const [body, code] of cases) {
      const res = await h().client.post('/1.1/files', body);
      assert.deepEqual([res.status, res.body.code], [400, code], JSON.stringify(body));
    }
    assert.equal((await h().client.get('/1.1/classes/_File', { count: 1, limit: 0 })).body.count, before);
  });

  test('content inside the JSON body of POST /1.1/files, and Qiniu uploads, are refused with a clear error', async () => {
    const attempts = [
      h().client.post('/1.1/qiniu', { name: 'a.txt' }),
      h().client.post('/1.1/files', { name: 'a.txt', base64: 'aGk=' }),
    ];
    for (const res of await Promise.all(attempts)) {
      assert.deepEqual([res.status, res.body.code], [400, 1]);
      assert.match(res.body.error, /not supported|cannot be sent/);
    }
  });

  test('DELETE /1.1/files/<id> (file.destroy()) removes the record; a missing file is {}', async () => {
    const { body } = await h().client.post('/1.1/files', { name: 'gone.txt', url: 'https://x.example.com/gone.txt' });
    const del = await h().client.delete(`/1.1/files/${body.objectId}`);
    assert.deepEqual([del.status, del.body], [200, {}]);
    const got = await h().client.get(`/1.1/files/${body.objectId}`);
    assert.equal(got.body.code, 211);
    assert.deepEqual((await h().client.delete(`/1.1/files/${body.objectId}`)).body, {});
  });

  test('queries: /1.1/classes/files and /1.1/classes/_File; internal files by key, external by url', async () => {
    const ext = await h().client.post('/1.1/files', { name: 'q.jpg', url: 'https://x.example.com/q.jpg' });
    for (const cls of ['files', '_File']) {
      const byUrl = await h().client.get(`/1.1/classes/${cls}`, { where: { url: 'https://x.example.com/q.jpg' } });
      assert.deepEqual(byUrl.body.results.map((f: Obj) => f.objectId), [ext.body.objectId], cls);
      const byKey = await h().client.get(`/1.1/classes/${cls}`, { where: { key: 'abc/inside.txt' } });
      assert.deepEqual(byKey.body.results.map((f: Obj) => f.objectId), [internalId], cls);
      const one = await h().client.get(`/1.1/classes/${cls}/${ext.body.objectId}`);
      assert.equal(one.body.name, 'q.jpg', cls);
    }
    const viaClasses = await h().client.post('/1.1/classes/files', { name: 'c.gif', url: 'https://x.example.com/c.gif' });
    assert.equal(viaClasses.status, 201);
    assert.equal((await h().client.get(`/1.1/files/${viaClasses.body.objectId}`)).body.mime_type, 'image/gif');
    const put = await h().client.put(`/1.1/classes/files/${viaClasses.body.objectId}`, { name: 'x' });
    assert.deepEqual([put.status, put.body.code], [403, 1]);
    const del = await h().client.delete(`/1.1/classes/files/${viaClasses.body.objectId}`);
    assert.deepEqual(del.body, {});
    // No user class called "files" was made along the way.
    const schemas = await h().client.get('/1.1/schemas', undefined, { master: true });
    assert.equal(schemas.body.files, undefined);
  });

  test('scan of files: internal files come without url, external ones with it', async () => {
    const ext = await h().client.post('/1.1/files', { name: 's.txt', url: 'https://x.example.com/s.txt' });
    for (const cls of ['files', '_File']) {
      const res = await h().client.get(`/1.1/scan/classes/${cls}`, { limit: 1000 }, { master: true });
      const byId = new Map(res.body.results.map((f: Obj) => [f.objectId, f]));
      const inside = byId.get(internalId) as Obj;
      assert.equal(inside.key, 'abc/inside.txt');
      assert.equal('url' in inside, false);
      assert.equal((byId.get(ext.body.objectId) as Obj).url, 'https://x.example.com/s.txt');
    }
  });

  test('an object referencing a file reads back with the file expanded', async () => {
    const file = await h().client.post('/1.1/files', { name: 'pic.webp', url: 'https://x.example.com/pic.webp' });
    const fid = file.body.objectId;
    const obj = await h().client.post('/1.1/classes/WithFile', {
      pic: { __type: 'File', id: fid },
      // The JS SDK sends the whole file JSON; only the reference is kept.
      also: { __type: 'File', objectId: fid, name: 'pic.webp', url: 'https://x.example.com/pic.webp', metaData: {} },
      gallery: [{ __type: 'File', id: fid }],
    });
    assert.equal(obj.status, 201);
    const got = await h().client.get(`/1.1/classes/WithFile/${obj.body.objectId}`);
    for (const f of [got.body.pic, got.body.also, got.body.gallery[0]]) {
      assert.equal(f.__type, 'File');
      assert.equal(f.objectId, fid);
      assert.equal(f.url, 'https://x.example.com/pic.webp');
      assert.equal(f.name, 'pic.webp');
      assert.equal(f.mime_type, 'image/webp');
    }
    const found = await h().client.get('/1.1/classes/WithFile');
    assert.equal(found.body.results[0].pic.url, 'https://x.example.com/pic.webp');
    const raw = await h().db.query<{ data: Obj }>(sql`SELECT data FROM "WithFile" WHERE "objectId" = ${obj.body.objectId}`);
    assert.deepEqual(raw[0].data.also, { __type: 'File', id: fid });
  });

  test('the JS SDK: withURL save, fetch, use in an object, destroy', async () => {
    pointSdkAt(await h().listen());
    const file = AV.File.withURL('sdk.png', 'https://x.example.com/sdk.png');
    await file.save();
    assert.match(file.id ?? '', /^[0-9a-f]{24}$/);
    const fetched = await AV.File.createWithoutData(file.id as string).fetch();
    assert.equal(fetched.url(), 'https://x.example.com/sdk.png');
    assert.equal(fetched.name(), 'sdk.png');
    const holder = new AV.Object('SdkFileHolder');
    holder.set('image', file);
    await holder.save();
    const back = await new AV.Query('SdkFileHolder').get(holder.id as string);
    const image = back.get('image') as InstanceType<typeof AV.File>;
    assert.ok(image instanceof AV.File);
    assert.equal(image.url(), 'https://x.example.com/sdk.png');
    await file.destroy();
    const gone = await h().client.get(`/1.1/files/${file.id}`);
    assert.equal(gone.body.code, 211);
  });
});
