import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutboxEvent } from '../store/event-outbox.ts';
import { StoreQueue } from './store-queue.ts';

const ev = (seq: string): OutboxEvent => ({ seq, subscriptionId: 's', payload: '{}' });

test('store queue: batches what queued up during a write, in order; settled() waits for everything queued so far', async () => {
  const writes: string[][] = [];
  const gates: (() => void)[] = [];
  const q = new StoreQueue(async (events) => {
    writes.push(events.map((e) => e.seq));
    await new Promise<void>((r) => gates.push(r));
  }, (err) => assert.fail(String(err)));
  const first = q.add([ev('1')]);
  const second = q.add([ev('2'), ev('3')]);
  const third = q.add([ev('4')]);
  assert.equal(second, third, 'one batch behind the write in progress');
  let settled = false;
  void q.settled().then(() => (settled = true));
  gates.shift()!();
  await first;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, [['1'], ['2', '3', '4']]);
  assert.equal(settled, false, 'the second batch is still being written');
  gates.shift()!();
  await third;
  await q.settled();
  assert.equal(settled, true);
  // A new batch after the queue ran empty starts a new write.
  const later = q.add([ev('5')]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, [['1'], ['2', '3', '4'], ['5']]);
  gates.shift()!();
  await later;
});

test('store queue: a failed write is reported and settles its batch; the next batch is still written', async () => {
  const errors: unknown[] = [];
  const written: string[] = [];
  let fail = true;
  const q = new StoreQueue(async (events) => {
    if (fail) {
      fail = false;
      throw new Error('down');
    }
    written.push(...events.map((e) => e.seq));
  }, (err) => errors.push(err));
  await q.add([ev('1')]);
  await q.add([ev('2')]);
  assert.equal(errors.length, 1);
  assert.deepEqual(written, ['2']);
});
