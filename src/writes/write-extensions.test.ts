import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WriteEventOf, WriteExtensionOf } from './extension-types.ts';
import { NO_NEEDS, WriteExtensions } from './write-extensions.ts';

type Ctx = { id: number };
const event = (className: string, op: 'create' | 'update' = 'create'): WriteEventOf<Ctx> => ({ ctx: { id: 1 }, className, op, source: 'api', objectId: 'x', flags: {} });

test('with nothing registered every write needs nothing (the shared constant)', () => {
  const w = new WriteExtensions<Ctx>();
  assert.equal(w.needs('Post', 'create'), NO_NEEDS);
  assert.equal(w.needs('_User', 'login'), NO_NEEDS);
});

test('needs merge the interests of every extension and are cached until changed()', () => {
  const w = new WriteExtensions<Ctx>();
  let asked = 0;
  let wantsPrevious = false;
  w.register({ name: 'a', interest: (c) => (asked++, c === 'Post' ? { before: true } : undefined), before: () => undefined });
  w.register({ name: 'b', interest: (c, op) => (c === 'Post' && op === 'update' ? { after: true, previous: wantsPrevious } : undefined), after: () => {} });
  assert.deepEqual({ ...w.needs('Post', 'update') }, { before: true, after: true, previous: false });
  assert.deepEqual({ ...w.needs('Post', 'create') }, { before: true, after: false, previous: false });
  assert.equal(w.needs('Other', 'create'), NO_NEEDS);
  const n = asked;
  w.needs('Post', 'update');
  assert.equal(asked, n, 'cached');
  wantsPrevious = true;
  assert.equal(w.needs('Post', 'update').previous, false, 'still cached');
  w.changed();
  assert.equal(w.needs('Post', 'update').previous, true);
});

test('an interest without the matching function counts for nothing; module rows get no before', () => {
  const w = new WriteExtensions<Ctx>();
  w.register({ name: 'x', interest: () => ({ before: true, after: true }) });
  assert.equal(w.needs('Post', 'create'), NO_NEEDS);
  w.register({ name: 'y', interest: () => ({ before: true }), before: () => undefined });
  assert.equal(w.needs('Post', 'create', 'module'), NO_NEEDS);
  assert.equal(w.needs('Post', 'create', 'api').before, true);
});

test('before calls run in order, each seeing the previous replacement; errors propagate', async () => {
  const w = new WriteExtensions<Ctx>();
  const seen: unknown[] = [];
  w.register({ name: 'a', interest: () => ({ before: true }), before: (b) => ({ replace: { ...b.object, a: 1 } }) });
  w.register({ name: 'b', interest: () => ({ before: true }), before: (b) => (seen.push(b.object), undefined) });
  const out = await w.before({ ctx: { id: 1 }, className: 'Post', op: 'create', source: 'api', object: { t: 0 }, flags: {} });
  assert.deepEqual(out, { t: 0, a: 1 });
  assert.deepEqual(seen, [{ t: 0, a: 1 }]);
  const r = w.register({ name: 'c', interest: () => ({ before: true }), before: () => { throw new Error('no'); } });
  await assert.rejects(w.before({ ctx: { id: 1 }, className: 'Post', op: 'create', source: 'api', object: {}, flags: {} }), /no/);
  r();
  assert.equal(await w.before({ ctx: { id: 1 }, className: 'Post', op: 'create', source: 'api', object: { t: 0 }, flags: {} }).then((o) => o?.a), 1);
});

test('after calls never throw: sync throws and rejections go to the sink, others still run', async () => {
  const w = new WriteExtensions<Ctx>();
  const failures: string[] = [];
  const got: string[] = [];
  w.reportTo((err, name) => failures.push(`${name}:${(err as Error).message}`));
  const ext = (name: string, run: WriteExtensionOf<Ctx>['after']): WriteExtensionOf<Ctx> => ({ name, interest: () => ({ after: true }), after: run });
  w.register(ext('sync', () => { throw new Error('s'); }));
  w.register(ext('async', async () => { throw new Error('a'); }));
  w.register(ext('ok', (e) => { got.push(e.className); }));
  w.after([event('Post'), event('Comment')]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['Post', 'Comment']);
  assert.deepEqual(failures.sort(), ['async:a', 'async:a', 'sync:s', 'sync:s']);
});
