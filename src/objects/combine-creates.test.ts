import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppScope } from '../app-scope.ts';
import { ApiError } from '../errors/api-error.ts';
import { defaultSettings } from '../settings/app-settings.ts';
import { CREATES_PENDING, createsBusy, createsWaiting, insertTogether, MAX_IN_FLIGHT_AFTER_BEFORE } from './combine-creates.ts';
import { settle } from './same-row-queue.ts';

/**
 * Holds CREATES_PENDING inserts of `cls` in flight (MAX_IN_FLIGHT_AFTER_BEFORE of creates that went
 * through a before extension, with `afterBefore`), so that the next creates wait and form one
 * group; `insert` records every statement (its rows) and fails as `fail` says.
 */
function setup(fail: (rows: readonly string[]) => Error | undefined = () => undefined, afterBefore = false) {
  const app = { scope: new AppScope(defaultSettings()) };
  const statements: string[][] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const insert = async (rows: readonly string[]) => {
    statements.push([...rows]);
    const err = fail(rows);
    if (err) throw err;
  };
  const inFlight = afterBefore ? MAX_IN_FLIGHT_AFTER_BEFORE : CREATES_PENDING;
  const blockers = Array.from({ length: inFlight }, (_, i) => insertTogether(app, 'C', `held${i}`, async () => held, afterBefore));
  return { app, statements, insert, release, blockers };
}

test('creates beyond the inserts in flight go as one insert when one ends; other classes do not wait', async () => {
  const { app, statements, insert, release, blockers } = setup();
  const group = ['a', 'b', 'c'].map((r) => insertTogether(app, 'C', r, insert));
  const other = insertTogether(app, 'D', 'd', insert);
  assert.equal(createsWaiting(app, 'C'), 3);
  await other;
  assert.deepEqual(statements, [['d']], 'another class starts at once');
  release();
  await Promise.all([...blockers, ...group]);
  assert.deepEqual(statements, [['d'], ['a', 'b', 'c']]);
  assert.equal(createsWaiting(app, 'C'), 0);
});

test('a group refused for a row\'s content runs each create alone; only that create fails', async () => {
  const { app, statements, insert, release, blockers } = setup((rows) => (rows.includes('bad') ? new ApiError('duplicateValue') : undefined));
  const group = ['a', 'bad', 'c'].map((r) => settle(() => insertTogether(app, 'C', r, insert)));
  release();
  await Promise.all(blockers);
  const got = await Promise.all(group);
  assert.deepEqual(got.map((s) => (s.ok ? 'ok' : (s.error as ApiError).errorName)), ['ok', 'duplicateValue', 'ok']);
  assert.deepEqual(statements.map((s) => s.join()).sort(), ['a', 'a,bad,c', 'bad', 'c']);
});

test('any other failure of the group reaches each of its creates, without running them again', async () => {
  const down = new ApiError('databaseUnavailable');
  const { app, statements, insert, release, blockers } = setup(() => down);
  const group = ['a', 'b'].map((r) => settle(() => insertTogether(app, 'C', r, insert)));
  release();
  await Promise.all(blockers);
  const got = await Promise.all(group);
  assert.deepEqual(got.map((s) => (s.ok ? 'ok' : s.error)), [down, down]);
  assert.deepEqual(statements, [['a', 'b']]);
});

test('creates that went through a before extension group once MAX_IN_FLIGHT_AFTER_BEFORE are in flight, apart from the others', async () => {
  const { app, statements, insert, release, blockers } = setup(undefined, true);
  const group = ['a', 'b'].map((r) => insertTogether(app, 'C', r, insert, true));
  assert.equal(createsWaiting(app, 'C', true), 2);
  // Creates without a before extension keep their own, wider, in-flight allowance.
  await insertTogether(app, 'C', 'plain', insert);
  assert.deepEqual(statements, [['plain']]);
  release();
  await Promise.all([...blockers, ...group]);
  assert.deepEqual(statements, [['plain'], ['a', 'b']]);
  assert.equal(createsWaiting(app, 'C', true), 0);
});

test('up to CREATES_PENDING - 1 concurrent creates run alone; once CREATES_PENDING are in flight the next ones wait and go together', async () => {
  const app = { scope: new AppScope(defaultSettings()) };
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const statements: string[][] = [];
  const insert = async (rows: readonly string[]) => {
    statements.push([...rows]);
    await held;
  };
  const alone = Array.from({ length: CREATES_PENDING }, (_, i) => insertTogether(app, 'C', `x${i}`, insert));
  assert.equal(createsWaiting(app, 'C'), 0, 'a few clients never wait for each other');
  assert.deepEqual(statements, Array.from({ length: CREATES_PENDING }, (_, i) => [`x${i}`]));
  const group = ['a', 'b', 'c'].map((r) => insertTogether(app, 'C', r, insert));
  assert.equal(createsWaiting(app, 'C'), 3, 'with CREATES_PENDING in flight the next creates wait');
  release();
  await Promise.all([...alone, ...group]);
  assert.deepEqual(statements.slice(CREATES_PENDING), [['a', 'b', 'c']]);
});

test('with two processes serving the app each groups once its share of CREATES_PENDING (at least 3) is in flight', async () => {
  assert.deepEqual(createsBusy(1), { inFlight: 2, pending: 4 });
  assert.deepEqual(createsBusy(2), { inFlight: 1, pending: 3 });
  const app = { scope: new AppScope(defaultSettings()), processes: 2 };
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const statements: string[][] = [];
  const insert = async (rows: readonly string[]) => void statements.push([...rows]);
  const blockers = Array.from({ length: 3 }, (_, i) => insertTogether(app, 'C', `held${i}`, async () => held));
  assert.equal(createsWaiting(app, 'C'), 0, 'three clients of a process never wait for each other');
  const group = ['a', 'b'].map((r) => insertTogether(app, 'C', r, insert));
  assert.equal(createsWaiting(app, 'C'), 2, 'the process\'s share is in flight: the next creates wait');
  release();
  await Promise.all([...blockers, ...group]);
  assert.deepEqual(statements, [['a', 'b']]);
});
