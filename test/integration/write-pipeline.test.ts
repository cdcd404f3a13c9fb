/**
 * The write pipeline's extension points (docs/architecture.md) on every write path: an extension
 * registered on the app sees before/after calls for REST, conditional writes, batch, batch/save,
 * users, logins, roles and module rows (friendships), may replace or refuse a write, and its
 * after failures never reach the client.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { ApiError } from '../../src/errors/api-error.ts';
import type { BeforeWrite, WriteEvent, WriteExtension, WriteInterest } from '../../src/writes/write-extension-api.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { seedUsers } from './harness/seed-users.ts';
import { assertError, signUp, uniqueName } from './harness/user-helpers.ts';

/** A recording extension; `interest` and `before` are per test. */
function recorder(opts: { interest?: (cls: string, op: string, source: string) => WriteInterest | undefined; before?: (w: BeforeWrite) => ReturnType<NonNullable<WriteExtension['before']>> } = {}) {
  const befores: BeforeWrite[] = [];
  const afters: WriteEvent[] = [];
  const ext: WriteExtension = {
    name: 'test-recorder',
    interest: (c, op, source) => (opts.interest ? opts.interest(c, op, source) : { before: true, after: true, previous: true }),
    before: (w) => {
      befores.push(w);
      return opts.before?.(w);
    },
    after: (e) => {
      afters.push(e);
    },
  };
  return { ext, befores, afters };
}

forEachEngine('write pipeline: extension points', (h) => {
  let unregister: (() => void) | undefined;
  const use = (r: ReturnType<typeof recorder>) => {
    unregister = h().app.writes.register(r.ext);
    return r;
  };
  afterEach(() => {
    unregister?.();
    unregister = undefined;
  });
  const cls = () => uniqueName('Wp');

  test('create: before sees the body and flags and may replace it; after gets the stored object with its ACL', async () => {
    const c = cls();
    const r = use(recorder({ before: (w) => ({ replace: { ...w.object, byHook: 1, objectId: 'ignored' } }) }));
    const res = await h().client.post(`/1.1/classes/${c}`, { title: 'x', __ignore_hooks: ['afterSave'] }, { query: { fetchWhenSave: true } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.byHook, 1);
    assert.notEqual(res.body.objectId, 'ignored');
    assert.equal(r.befores.length, 1);
    assert.deepEqual(r.befores[0].object, { title: 'x' });
    assert.deepEqual(r.befores[0].flags, { __ignore_hooks: ['afterSave'] });
    assert.equal(r.befores[0].op, 'create');
    assert.equal(r.afters.length, 1);
    const e = r.afters[0];
    assert.equal(e.op, 'create');
    assert.equal(e.objectId, res.body.objectId);
    assert.equal(e.object?.title, 'x');
    assert.equal(e.object?.byHook, 1);
    assert.deepEqual(e.object?.ACL, { '*': { read: true, write: true } });
    const stored = await h().client.get(`/1.1/classes/${c}/${res.body.objectId}`);
    assert.equal(stored.body.byHook, 1);
    assert.equal('__ignore_hooks' in stored.body, false);
  });

  test('create: a replacement equal to the body (a no-op beforeSave) is stored as sent, stamped after the extension', async () => {
    const c = cls();
    let answeredAt = 0;
    use(
      recorder({
        before: async (w) => {
          await new Promise((r) => setTimeout(r, 30));
          answeredAt = Date.now();
          // What a no-op LeanEngine beforeSave answers: the object it was sent, as JSON.
          return { replace: JSON.parse(JSON.stringify(w.object)) };
        },
      }),
    );
    const sentAt = Date.now();
    const body = { __ignore_hooks: ['afterSave'], title: 'x', n: 1, tags: ['a', 'b'], at: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' }, ACL: { '*': { read: true } } };
    const res = await h().client.post(`/1.1/classes/${c}`, body, { query: { fetchWhenSave: true } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const createdAt = Date.parse(res.body.createdAt);
    assert.ok(createdAt >= answeredAt && answeredAt >= sentAt + 25, `createdAt ${res.body.createdAt} is taken after the extension answered (${new Date(answeredAt).toISOString()})`);
    assert.equal(res.body.updatedAt, res.body.createdAt);
    assert.deepEqual(
      { title: res.body.title, n: res.body.n, tags: res.body.tags, at: res.body.at },
      { title: 'x', n: 1, tags: ['a', 'b'], at: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } },
    );
    const stored = await h().client.get(`/1.1/classes/${c}/${res.body.objectId}`, { returnACL: 'true' }, { master: true });
    assert.equal(stored.status, 200);
    assert.equal(stored.body.createdAt, res.body.createdAt);
    assert.deepEqual(stored.body.ACL, { '*': { read: true } });
    assert.deepEqual(stored.body.at, { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' });
    assert.equal('__ignore_hooks' in stored.body, false);
    // The same body refused before the extension is still refused (it was checked before the call).
    assertError(await h().client.post(`/1.1/classes/${c}`, { n: 'not a number' }), 400, 111);
  });

  test('create: a refusal is the client error and nothing is written; a bad replacement is validated', async () => {
    const c = cls();
    use(recorder({ before: (w) => { if (w.object.bad) throw new ApiError('badRequest', 'refused by hook'); return w.object.junk ? { replace: { 'bad key': 1 } } : undefined; } }));
    assertError(await h().client.post(`/1.1/classes/${c}`, { bad: true }), 400, 1);
    assertError(await h().client.post(`/1.1/classes/${c}`, { junk: true }), 400, 105);
    const n = await h().client.get(`/1.1/classes/${c}`, { count: 1, limit: 0 }, { master: true });
    assert.equal(n.body.count ?? 0, 0);
  });

  test('update: updatedKeys, the previous and new object (one statement), conditional writes', async () => {
    const c = cls();
    const made = await h().client.post(`/1.1/classes/${c}`, { n: 1, tag: 'a' });
    const r = use(recorder());
    const res = await h().client.put(`/1.1/classes/${c}/${made.body.objectId}`, { n: { __op: 'Increment', amount: 2 } });
    assert.equal(res.status, 200);
    assert.deepEqual(r.befores[0].updatedKeys, ['n']);
    assert.equal(r.befores[0].stored?.n, 1);
    const e = r.afters[0];
    assert.equal(e.op, 'update');
    assert.equal(e.previous?.n, 1);
    assert.equal(e.object?.n, 3);
    assert.equal(e.object?.tag, 'a');
    assert.deepEqual(e.updatedKeys, ['n']);
    assert.ok(e.object?.ACL);
    // A where that does not match: 305, no after event.
    const miss = await h().client.put(`/1.1/classes/${c}/${made.body.objectId}`, { n: 0 }, { query: { where: { n: 99 } } });
    assertError(miss, 400, 305);
    assert.equal(r.afters.length, 1);
    const hit = await h().client.put(`/1.1/classes/${c}/${made.body.objectId}`, { tag: 'b' }, { query: { where: { n: 3 } } });
    assert.equal(hit.status, 200);
    assert.equal(r.afters[1].previous?.tag, 'a');
    assert.equal(r.afters[1].object?.tag, 'b');
  });

  test('update without `previous`: the event has the new object only; a replacement is what is stored', async () => {
    const c = cls();
    const made = await h().client.post(`/1.1/classes/${c}`, { n: 1 });
    const r = use(recorder({ interest: () => ({ before: true, after: true }), before: (w) => ({ replace: { ...w.object, byBeforeUpdate: 1 } }) }));
    const res = await h().client.put(`/1.1/classes/${c}/${made.body.objectId}`, { n: 5 }, { query: { new: true } });
    assert.equal(res.status, 200);
    assert.equal(res.body.byBeforeUpdate, 1);
    assert.equal(r.befores[0].stored, undefined);
    assert.equal(r.afters[0].previous, undefined);
    assert.equal(r.afters[0].object?.byBeforeUpdate, 1);
  });

  test('delete: before sees the stored object and may refuse; after gets the deleted object', async () => {
    const c = cls();
    const a = await h().client.post(`/1.1/classes/${c}`, { keep: true });
    const b = await h().client.post(`/1.1/classes/${c}`, { keep: false });
    const r = use(recorder({ before: (w) => { if (w.op === 'delete' && w.stored?.keep) throw new ApiError('forbidden', 'kept'); } }));
    assertError(await h().client.request({ method: 'DELETE', url: `/1.1/classes/${c}/${a.body.objectId}` }), 403, 1);
    assert.equal((await h().client.get(`/1.1/classes/${c}/${a.body.objectId}`)).body.keep, true);
    const del = await h().client.request({ method: 'DELETE', url: `/1.1/classes/${c}/${b.body.objectId}`, body: { __ignore_hooks: ['afterDelete'] } });
    assert.equal(del.status, 200);
    const e = r.afters.find((x) => x.op === 'delete');
    assert.equal(e?.objectId, b.body.objectId);
    assert.equal(e?.previous?.keep, false);
    assert.deepEqual(e?.flags, { __ignore_hooks: ['afterDelete'] });
  });

  test('after failures never fail the request', async () => {
    const c = cls();
    unregister = h().app.writes.register({ name: 'broken', interest: () => ({ after: true }), after: () => { throw new Error('boom'); } });
    const res = await h().client.post(`/1.1/classes/${c}`, { a: 1 });
    assert.equal(res.status, 201);
  });

  test('writes nobody asked about are not shown to the extension', async () => {
    const c = cls();
    const r = use(recorder({ interest: (k) => (k === 'Elsewhere' ? { before: true, after: true } : undefined) }));
    await h().client.post(`/1.1/classes/${c}`, { a: 1 });
    assert.equal(r.befores.length + r.afters.length, 0);
  });

  test('batch: each create runs its own hooks and one refusal fails only that item', async () => {
    const c = cls();
    const r = use(recorder({ before: (w) => { if (w.object.no) throw new ApiError('badRequest', 'no'); } }));
    const res = await h().client.post('/1.1/batch', {
      requests: [
        { method: 'POST', path: `/1.1/classes/${c}`, body: { i: 0 } },
        { method: 'POST', path: `/1.1/classes/${c}`, body: { i: 1, no: true } },
        { method: 'POST', path: `/1.1/classes/${c}`, body: { i: 2 } },
      ],
    });
    assert.equal(res.status, 200);
    assert.ok(res.body[0].success?.objectId);
    assert.equal(res.body[1].error?.code, 1);
    assert.ok(res.body[2].success?.objectId);
    assert.equal(r.befores.length, 3);
    assert.deepEqual(r.afters.map((e) => e.object?.i), [0, 2]);
  });

  test('batch: grouped creates with only after extensions give one event per object', async () => {
    const c = cls();
    const r = use(recorder({ interest: () => ({ after: true }) }));
    const res = await h().client.post('/1.1/batch', { requests: [0, 1, 2].map((i) => ({ method: 'POST', path: `/1.1/classes/${c}`, body: { i } })) });
    assert.equal(res.status, 200);
    assert.deepEqual(r.afters.map((e) => [e.op, e.object?.i, e.objectId]), res.body.map((x: any, i: number) => ['create', i, x.success.objectId]));
  });

  test('batch/save: creates and updates of the pipeline', async () => {
    const c = cls();
    const r = use(recorder());
    const res = await h().client.post('/1.1/batch/save', {
      requests: [
        { method: 'POST', path: `/1.1/classes/${c}`, body: { __internalId: 'child', n: 1 } },
        { method: 'POST', path: `/1.1/classes/${c}`, body: { __internalId: 'parent', __children: [{ className: c, cid: 'child', key: 'kid' }] } },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(r.afters.map((e) => e.op), ['create', 'create']);
    assert.equal((r.afters[1].object?.kid as any)?.objectId, res.body.child.objectId);
    assert.equal(r.befores[0].object.__internalId, undefined);
  });

  test('users: sign-up, update, login and delete go through the pipeline', async () => {
    const r = use(recorder({ interest: (k) => (k === '_User' ? { before: true, after: true, previous: true } : undefined) }));
    const u = await signUp(h(), { nick: 'a' });
    const created = r.afters.find((e) => e.op === 'create');
    assert.equal(created?.objectId, u.objectId);
    assert.equal(created?.object?.nick, 'a');
    assert.equal(created?.object?.password, undefined);
    const upd = await h().client.put(`/1.1/users/${u.objectId}`, { nick: 'b' }, { session: u.sessionToken });
    assert.equal(upd.status, 200);
    const updated = r.afters.find((e) => e.op === 'update');
    assert.equal(updated?.previous?.nick, 'a');
    assert.equal(updated?.object?.nick, 'b');
    const login = await h().client.post('/1.1/login', { username: u.username, password: u.password });
    assert.equal(login.status, 200);
    assert.equal(r.befores.filter((b) => b.op === 'login').length, 1);
    assert.equal(r.afters.find((e) => e.op === 'login')?.objectId, u.objectId);
    const del = await h().client.request({ method: 'DELETE', url: `/1.1/users/${u.objectId}`, session: u.sessionToken });
    assert.equal(del.status, 200);
    assert.equal(r.afters.find((e) => e.op === 'delete')?.previous?.nick, 'b');
  });

  test('users: a login refused by a before extension gives no session', async () => {
    const u = await signUp(h());
    use(recorder({ interest: (k, op) => (op === 'login' ? { before: true } : undefined), before: () => { throw new ApiError('forbidden', 'onLogin said no'); } }));
    assertError(await h().client.post('/1.1/login', { username: u.username, password: u.password }), 403, 1);
  });

  test('roles: the role rules also apply to a body a before extension returns', async () => {
    use(recorder({ interest: (k) => (k === '_Role' ? { before: true, after: true } : undefined), before: (w) => ({ replace: { ...w.object, users: [] } }) }));
    const res = await h().client.post('/1.1/roles', { name: uniqueName('R'), ACL: { '*': { read: true } } }, { master: true });
    assertError(res, 400, 128);
  });

  test('friendship rows (module rows) give after events, no before calls', async () => {
    const set = await h().client.put('/1.1/larder/settings', { richPresenceSync: true, friendModel: 'mutual' }, { master: true });
    assert.equal(set.status, 200);
    const [a, b] = await seedUsers(h(), 2);
    const r = use(recorder({ interest: (k) => (k.startsWith('_F') ? { before: true, after: true, previous: true } : undefined) }));
    const req = await h().client.post('/1.1/users/friendshipRequests', { user: a.pointer, friend: b.pointer }, { session: a.sessionToken });
    assert.equal(req.status, 201, JSON.stringify(req.body));
    const acc = await h().client.put(`/1.1/users/friendshipRequests/${req.body.objectId}/accept`, {}, { session: b.sessionToken });
    assert.equal(acc.status, 200);
    assert.equal(r.befores.length, 0);
    const seen = r.afters.map((e) => `${e.op} ${e.className}`);
    assert.ok(seen.includes('create _FriendshipRequest'), seen.join());
    const answered = r.afters.find((e) => e.op === 'update' && e.className === '_FriendshipRequest');
    assert.equal(answered?.previous?.status, 'pending');
    assert.equal(answered?.object?.status, 'accepted');
    assert.ok(r.afters.every((e) => e.source === 'module'));
  });
});
