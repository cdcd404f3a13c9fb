// Names that exist on Object.prototype (toString, constructor, valueOf, hasOwnProperty,
// __proto__, ...) used as class, field, nested key and role names through every endpoint
// (issue 12 item 2): every lookup keyed by a client's name is an own-property or Map lookup,
// so they are ordinary names. `__proto__` and names starting with `_` stay refused by the
// name rules (103/105/139), never with a 500.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { downloadArchive, exportAndWait, readJsonl } from './harness/export-archive.ts';
import { forEachEngine } from './harness/engines.ts';
import type { TestResponse } from './harness/client.ts';

const NAMES = Object.getOwnPropertyNames(Object.prototype);
/** The names the name rules accept (a letter first); the others must be refused cleanly. */
const USABLE = NAMES.filter((n) => /^[A-Za-z]/.test(n));

function ok(res: TestResponse, what: string): void {
  assert.ok(res.status < 300, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
}

function refused(res: TestResponse, what: string): void {
  assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.equal(typeof res.body?.code, 'number', what);
}

forEachEngine('built-in names (Object.prototype) as class, field, key and role names', (h) => {
  test('the list covers the names the issue names', () => {
    for (const n of ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf', 'toLocaleString']) assert.ok(NAMES.includes(n), n);
    assert.ok(USABLE.length >= 6);
  });

  test('class names: create, get, find, count, update, delete, scan, schema, batch, permissions', async () => {
    const c = h().client;
    for (const name of NAMES.filter((n) => !USABLE.includes(n))) {
      refused(await c.post(`/1.1/classes/${name}`, { n: 1 }), `create ${name}`);
      refused(await c.get(`/1.1/classes/${name}`), `find ${name}`);
      refused(await c.get(`/1.1/schemas/${name}`, {}, { master: true }), `schema ${name}`);
    }
    for (const name of USABLE) {
      const url = `/1.1/classes/${name}`;
      // Before the class exists: an empty answer, not a 500.
      const empty = await c.get(url, { count: 1 });
      ok(empty, `find before create ${name}`);
      assert.deepEqual(empty.body, { results: [], count: 0 });
      const created = await c.post(url, { n: 1 });
      ok(created, `create ${name}`);
      const id = created.body.objectId;
      const got = await c.get(`${url}/${id}`);
      ok(got, `get ${name}`);
      assert.equal(got.body.n, 1);
      const found = await c.get(url, { where: { n: 1 }, count: 1 });
      ok(found, `find ${name}`);
      assert.equal(found.body.count, 1);
      ok(await c.put(`${url}/${id}`, { n: { __op: 'Increment', amount: 1 } }), `update ${name}`);
      const scanned = await c.get(`/1.1/scan/classes/${name}`, {}, { master: true });
      ok(scanned, `scan ${name}`);
      assert.deepEqual(scanned.body.results.map((o: { n: number }) => o.n), [2]);
      const schema = await c.get(`/1.1/schemas/${name}`, {}, { master: true });
      ok(schema, `schema ${name}`);
      assert.deepEqual(schema.body.n, { type: 'Number' });
      const batch = await c.post('/1.1/batch', {
        requests: [
          { method: 'POST', path: `/1.1/classes/${name}`, body: { n: 10 } },
          { method: 'GET', path: `/1.1/classes/${name}/${id}` },
          { method: 'GET', path: `/1.1/classes/${name}`, params: { where: { n: 2 } } },
        ],
      });
      ok(batch, `batch ${name}`);
      assert.ok(batch.body[0].success?.objectId, `batch create ${name}: ${JSON.stringify(batch.body[0])}`);
      assert.equal(batch.body[1].success?.n, 2, `batch get ${name}`);
      assert.equal(batch.body[2].success?.results?.length, 1, `batch find ${name}`);
      const cql = await c.get('/1.1/cloudQuery', { cql: `select * from ${name} where n = ?`, pvalues: [2] });
      ok(cql, `cloudQuery ${name}`);
      assert.equal(cql.body.results?.length, 1, `cloudQuery ${name}: ${cql.text.slice(0, 200)}`);
      const perms = await c.put(`/1.1/larder/classes/${name}/permissions`, { find: { '*': true } }, { master: true });
      ok(perms, `permissions ${name}`);
      ok(await c.get(`/1.1/larder/classes/${name}/permissions`, {}, { master: true }), `read permissions ${name}`);
      ok(await c.delete(`${url}/${id}`), `delete ${name}`);
    }
    const all = await c.get('/1.1/schemas', {}, { master: true });
    ok(all, 'GET /1.1/schemas');
    for (const name of USABLE) assert.ok(Object.hasOwn(all.body, name), `schemas lists ${name}`);
  });

  test('a full export includes every such class', async () => {
    const done = await exportAndWait(h(), {});
    assert.equal(done.status, 'done', JSON.stringify(done));
    const { entries } = await downloadArchive(h(), done.download_url as string);
    for (const name of USABLE) {
      const file = entries.get(`${name}.0.jsonl`);
      assert.ok(file, `export has ${name}: ${[...entries.keys()].join(',')}`);
      // One object left per class: the one the batch created (the first was deleted).
      assert.equal(readJsonl(file).rows.length, 1, name);
    }
  });

  test('field and nested key names: create, get, find (where, order, keys), update, include, schema', async () => {
    const c = h().client;
    for (const name of NAMES.filter((n) => !USABLE.includes(n))) refused(await c.post('/1.1/classes/FieldNames', { [name]: 1 }), `field ${name}`);
    const target = await c.post('/1.1/classes/FieldTarget', { label: 't' });
    for (const name of USABLE) {
      const body = { [name]: 'v', nested: { [name]: { [name]: 1 } }, ptr: { __type: 'Pointer', className: 'FieldTarget', objectId: target.body.objectId } };
      const created = await c.post('/1.1/classes/FieldNames', body);
      ok(created, `create field ${name}`);
      const id = created.body.objectId;
      const got = await c.get(`/1.1/classes/FieldNames/${id}`, { include: 'ptr' });
      ok(got, `get field ${name}`);
      assert.equal(got.body[name], 'v');
      assert.equal(got.body.nested[name][name], 1);
      assert.equal(got.body.ptr.label, 't');
      const found = await c.get('/1.1/classes/FieldNames', { where: { [name]: 'v', [`nested.${name}.${name}`]: 1 }, count: 1, order: `-${name}`, keys: `${name},nested.${name}` });
      ok(found, `find field ${name}`);
      assert.equal(found.body.count, 1, name);
      assert.deepEqual(Object.keys(found.body.results[0]).sort(), [name, 'createdAt', 'nested', 'objectId', 'updatedAt'].sort());
      // A key the object does not have is absent, not a prototype member.
      const other = USABLE.find((n) => n !== name) as string;
      const projected = await c.get(`/1.1/classes/FieldNames/${id}`, { keys: other });
      assert.ok(!Object.hasOwn(projected.body, name), `${name} projected away`);
      ok(await c.put(`/1.1/classes/FieldNames/${id}`, { [name]: 'w', [`nested.${name}.${name}`]: 2 }), `update field ${name}`);
      const again = await c.get(`/1.1/classes/FieldNames/${id}`);
      assert.equal(again.body[name], 'w');
      assert.equal(again.body.nested[name][name], 2);
      await c.delete(`/1.1/classes/FieldNames/${id}`);
    }
    const schema = await c.get('/1.1/schemas/FieldNames', {}, { master: true });
    for (const name of USABLE) assert.deepEqual(schema.body[name], { type: 'String' }, name);
    // Stored built-in names never reach a prototype.
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
    const polluted = await c.post('/1.1/classes/FieldPolluted', JSON.parse('{"constructor":{"prototype":{"isAdmin":true}}}'));
    ok(polluted, 'constructor.prototype as data');
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  });

  test('role names: create, find, permissions that list them', async () => {
    const c = h().client;
    // Role names are letters, digits and underscore, so every name on Object.prototype is one.
    for (const name of NAMES) {
      const created = await c.post('/1.1/roles', { name, ACL: { '*': { read: true } } }, { master: true });
      ok(created, `role ${name}`);
      const found = await c.get('/1.1/roles', { where: { name } });
      ok(found, `find role ${name}`);
      assert.equal(found.body.results.length, 1);
      ok(await c.put('/1.1/larder/classes/RoleGuarded/permissions', { get: { roles: [name] } }, { master: true }), `permission role ${name}`);
      const perms = await c.get('/1.1/larder/classes/RoleGuarded/permissions', {}, { master: true });
      assert.deepEqual(perms.body.get, { users: [], roles: [name] });
    }
    for (const name of ['role:admins', 'a b', 'a-b', '']) {
      refused(await c.put('/1.1/larder/classes/RoleGuarded/permissions', { get: { roles: [name] } }, { master: true }), `permission role ${JSON.stringify(name)}`);
    }
  });
});
