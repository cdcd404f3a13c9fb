import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RenderSlots } from './render-slots.ts';

class Refused extends Error {}

/** A piece of work that runs until `finish()`; `started` says whether it began. */
function gate(): { work: () => Promise<string>; finish: (v?: string) => void; started: () => boolean } {
  let started = false;
  let finish: (v?: string) => void = () => {};
  const done = new Promise<string>((resolve) => (finish = (v = 'done') => resolve(v)));
  return { work: () => ((started = true), done), finish: (v) => finish(v), started: () => started };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

test('slots run at once; the next waits and gets the first slot freed, in order', async () => {
  const slots = new RenderSlots({ slots: 2, queue: 2, waitMs: 10_000 }, () => new Refused());
  const [a, b, c, d] = [gate(), gate(), gate(), gate()];
  const runs = [a, b, c, d].map((g) => slots.run(g.work));
  await tick();
  assert.deepEqual([a, b, c, d].map((g) => g.started()), [true, true, false, false]);
  assert.deepEqual(slots.load, { running: 2, waiting: 2 });
  b.finish();
  await tick();
  assert.deepEqual([c.started(), d.started()], [true, false], 'the first waiter takes the freed slot');
  a.finish();
  c.finish();
  d.finish('d');
  assert.deepEqual(await Promise.all(runs), ['done', 'done', 'done', 'd']);
  assert.deepEqual(slots.load, { running: 0, waiting: 0 });
});

test('a full queue refuses at once, without starting the work', async () => {
  const slots = new RenderSlots({ slots: 1, queue: 1, waitMs: 10_000 }, () => new Refused());
  const [a, b, c] = [gate(), gate(), gate()];
  const ra = slots.run(a.work);
  const rb = slots.run(b.work);
  await assert.rejects(slots.run(c.work), Refused);
  assert.equal(c.started(), false);
  a.finish();
  b.finish();
  await Promise.all([ra, rb]);
});

test('a wait longer than waitMs is refused and leaves the queue; the slot count stays right', async () => {
  const slots = new RenderSlots({ slots: 1, queue: 4, waitMs: 20 }, () => new Refused());
  const [a, b] = [gate(), gate()];
  const ra = slots.run(a.work);
  await assert.rejects(slots.run(b.work), Refused);
  assert.equal(b.started(), false);
  assert.deepEqual(slots.load, { running: 1, waiting: 0 });
  a.finish();
  await ra;
  assert.deepEqual(slots.load, { running: 0, waiting: 0 });
  assert.equal(await slots.run(async () => 'next'), 'next', 'a later render gets the slot');
});

test('work that fails gives its slot back', async () => {
  const slots = new RenderSlots({ slots: 1, queue: 0, waitMs: 10 }, () => new Refused());
  await assert.rejects(slots.run(async () => { throw new Error('decode'); }), /decode/);
  assert.equal(await slots.run(async () => 'ok'), 'ok');
});
