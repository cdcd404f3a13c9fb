import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineTurns, MAX_OVERTAKEN } from './engine-turns.ts';

/** Queues waiters of the given kinds and records the order in which they get the engine. */
function queue(turns: EngineTurns, kinds: ('cheap' | 'heavy')[], order: string[]): Promise<void>[] {
  return kinds.map((kind, i) => (turns.take(kind === 'heavy') as Promise<void>).then(() => void order.push(`${kind}${i}`)));
}

test('cheap waiters go before heavy ones that wait; otherwise arrival order', async () => {
  const turns = new EngineTurns();
  assert.equal(turns.take(true), undefined);
  assert.equal(turns.busy, true);
  const order: string[] = [];
  const waits = queue(turns, ['heavy', 'cheap', 'heavy', 'cheap'], order);
  assert.equal(turns.queued, 4);
  for (let i = 0; i < 4; i++) {
    assert.equal(turns.pass(), true);
    await waits[[1, 3, 0, 2][i]];
  }
  assert.deepEqual(order, ['cheap1', 'cheap3', 'heavy0', 'heavy2']);
  assert.equal(turns.pass(), false);
  assert.equal(turns.busy, false);
});

test(`a heavy waiter overtaken ${MAX_OVERTAKEN} times is served in arrival order (no starvation)`, async () => {
  const turns = new EngineTurns();
  turns.take(false);
  const order: string[] = [];
  const [heavy] = queue(turns, ['heavy'], order);
  for (let i = 0; i < MAX_OVERTAKEN; i++) {
    const [cheap] = queue(turns, ['cheap'], order);
    turns.pass();
    await cheap;
  }
  const [last] = queue(turns, ['cheap'], order);
  turns.pass();
  await heavy;
  turns.pass();
  await last;
  assert.deepEqual(order.slice(-2), ['heavy0', 'cheap0']);
  assert.equal(order.length, MAX_OVERTAKEN + 2);
});
