import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SameRowQueue, settle, type Settled } from './same-row-queue.ts';

/** A promise with its resolve function, to hold a group in flight. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const ok = <O>(value: O): Settled<O> => ({ ok: true, value });

test('a lone submission starts at once, alone', async () => {
  const q = new SameRowQueue<number, number>(10);
  const groups: number[][] = [];
  const p = q.submit('k', 5, async (inputs) => {
    groups.push([...inputs]);
    return inputs.map((i) => ok(i * 2));
  });
  assert.deepEqual(groups, [[5]], 'run was called synchronously');
  assert.equal(await p, 10);
  assert.equal(q.busyKeys, 0);
});

test('submissions during a run go together as the next group, in arrival order', async () => {
  const q = new SameRowQueue<number, string>(10);
  const gate = deferred<void>();
  const groups: number[][] = [];
  const run = async (inputs: readonly number[]) => {
    groups.push([...inputs]);
    if (groups.length === 1) await gate.promise;
    return inputs.map((i) => ok(`r${i}`));
  };
  const first = q.submit('k', 1, run);
  const rest = [2, 3, 4].map((i) => q.submit('k', i, run));
  const other = q.submit('other', 9, run);
  assert.deepEqual(groups, [[1], [9]], 'another key does not wait');
  gate.resolve();
  assert.deepEqual(await Promise.all([first, ...rest, other]), ['r1', 'r2', 'r3', 'r4', 'r9']);
  assert.deepEqual(groups, [[1], [9], [2, 3, 4]]);
  assert.equal(q.busyKeys, 0);
});

test('groups are bounded; per-input errors reach only their caller; a failed run rejects its group', async () => {
  const q = new SameRowQueue<number, number>(2);
  const gate = deferred<void>();
  const groups: number[][] = [];
  const run = async (inputs: readonly number[]): Promise<Settled<number>[]> => {
    groups.push([...inputs]);
    if (groups.length === 1) await gate.promise;
    if (inputs.includes(5)) throw new Error('group failed');
    return inputs.map((i) => (i === 3 ? { ok: false, error: new Error('three') } : ok(i)));
  };
  const all = [1, 2, 3, 4, 5].map((i) => settle(() => q.submit('k', i, run)));
  gate.resolve();
  const got = await Promise.all(all);
  assert.deepEqual(groups, [[1], [2, 3], [4, 5]]);
  assert.deepEqual(got.map((s) => (s.ok ? s.value : (s.error as Error).message)), [1, 2, 'three', 'group failed', 'group failed']);
  assert.equal(q.busyKeys, 0);
});

test('a run returning too few outcomes rejects the uncovered callers', async () => {
  const q = new SameRowQueue<number, number>(10);
  const gate = deferred<void>();
  let calls = 0;
  const run = async (inputs: readonly number[]) => {
    if (calls++ === 0) await gate.promise;
    return inputs.slice(0, 1).map((i) => ok(i));
  };
  const first = q.submit('k', 1, run);
  const a = settle(() => q.submit('k', 2, run));
  const b = settle(() => q.submit('k', 3, run));
  gate.resolve();
  assert.equal(await first, 1);
  assert.deepEqual(await a, { ok: true, value: 2 });
  const sb = await b;
  assert.equal(sb.ok, false);
});

test('with maxInFlight n, the first n submissions start at once and later ones wait and go together', async () => {
  const q = new SameRowQueue<number, number>(10, 2);
  const gates = [deferred<void>(), deferred<void>()];
  const groups: number[][] = [];
  const run = async (inputs: readonly number[]) => {
    const n = groups.push([...inputs]);
    if (n <= 2) await gates[n - 1].promise;
    return inputs.map((i) => ok(i));
  };
  const all = [1, 2, 3, 4, 5].map((i) => q.submit('k', i, run));
  assert.deepEqual(groups, [[1], [2]], 'two alone at once');
  assert.equal(q.waiting('k'), 3);
  gates[1].resolve();
  await all[1];
  assert.deepEqual(groups, [[1], [2], [3, 4, 5]], 'the first to finish takes the waiting ones');
  gates[0].resolve();
  assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5]);
  assert.equal(q.busyKeys, 0);
  assert.equal(q.waiting('k'), 0);
});

test('busy: alone while few are pending, then waiting though fewer than maxInFlight run', async () => {
  const q = new SameRowQueue<number, number>(16, 8, { inFlight: 2, pending: 4 });
  const gate = deferred<void>();
  const groups: number[][] = [];
  const run = async (inputs: readonly number[]) => {
    groups.push([...inputs]);
    if (groups.length <= 4) await gate.promise;
    return inputs.map((i) => ok(i));
  };
  const all = [1, 2, 3, 4, 5, 6, 7].map((i) => q.submit('k', i, run));
  assert.deepEqual(groups, [[1], [2], [3], [4]], 'four run alone at once; the rest wait (8 would have run seven)');
  assert.equal(q.waiting('k'), 3);
  gate.resolve();
  assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(groups.slice(4), [[5, 6, 7]], 'the waiting ones go as one group');
});

test('busy: below its inFlight, a submission starts whatever is pending', async () => {
  const q = new SameRowQueue<number, number>(16, 8, { inFlight: 2, pending: 1 });
  const gate = deferred<void>();
  const groups: number[][] = [];
  const run = async (inputs: readonly number[]) => {
    groups.push([...inputs]);
    await gate.promise;
    return inputs.map((i) => ok(i));
  };
  const all = [1, 2, 3].map((i) => q.submit('k', i, run));
  assert.deepEqual(groups, [[1], [2]]);
  assert.equal(q.waiting('k'), 1);
  gate.resolve();
  assert.deepEqual(await Promise.all(all), [1, 2, 3]);
});
