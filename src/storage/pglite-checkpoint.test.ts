import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdleCheckpoints } from './pglite-checkpoint.ts';

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
