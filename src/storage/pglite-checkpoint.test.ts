import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUSY_EVERY_MS, IdleCheckpoints } from './pglite-checkpoint.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a checkpoint runs once the engine has been idle after work, not without work, never after stop', async () => {
  let runs = 0;
  const c = new IdleCheckpoints(async () => void runs++);
  c.idle();
  await sleep(1300);
  assert.equal(runs, 0, 'no work yet: nothing to checkpoint');
  c.busy();
  c.idle();
  c.busy(); // more work before the idle time passed: the timer starts again at the next idle
  await sleep(1300);
  assert.equal(runs, 0);
  c.idle();
  await sleep(1300);
  assert.equal(runs, 1);
  c.idle();
  await sleep(1300);
  assert.equal(runs, 1, 'idle again without work: no second checkpoint');
  c.busy();
  c.stop();
  c.idle();
  await sleep(1300);
  assert.equal(runs, 1, 'stopped: none');
});

test(`an engine busy all along checkpoints every ${BUSY_EVERY_MS} ms`, (t) => {
  t.mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 });
  let runs = 0;
  const c = new IdleCheckpoints(async () => void runs++);
  c.busy();
  t.mock.timers.tick(BUSY_EVERY_MS - 10_000 - 1);
  c.busy();
  assert.equal(runs, 0, 'not yet');
  t.mock.timers.tick(1);
  c.busy();
  assert.equal(runs, 1);
  c.busy();
  assert.equal(runs, 1, 'one per period');
  t.mock.timers.tick(BUSY_EVERY_MS);
  c.busy();
  assert.equal(runs, 2);
  c.stop();
});
