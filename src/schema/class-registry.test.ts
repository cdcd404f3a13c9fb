import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Sql } from '../sql/fragment.ts';
import type { Database } from '../storage/database.ts';
import { ClassRegistry } from './class-registry.ts';

/** A statement the fake database holds until the test answers it. */
interface Held {
  text: string;
  answer(rows: unknown[]): void;
}

/** A database whose statements wait until the test answers them, so interleavings are exact. */
function heldDatabase(): { db: Database; held: Held[]; next(re: RegExp): Promise<Held> } {
  const held: Held[] = [];
  const waiters: (() => void)[] = [];
  const db: Database = {
    engine: 'postgres',
    schema: 't',
    query: <R>(statement: Sql) => new Promise<R[]>((resolve) => {
      held.push({ text: statement.toQuery().text, answer: (rows) => resolve(rows as R[]) });
      for (const w of waiters.splice(0)) w();
    }),
    transaction: () => Promise.reject(new Error('not used')),
    exec: () => Promise.resolve(),
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  /** The first held statement matching `re`, taken off the list (waits for it to be sent). */
  async function next(re: RegExp): Promise<Held> {
    for (;;) {
      const i = held.findIndex((x) => re.test(x.text));
      if (i >= 0) return held.splice(i, 1)[0];
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  }
  return { db, held, next };
}

const CATALOGUE = /SELECT name, fields FROM _larder_classes$/;
const ONE_CLASS = /SELECT name, fields FROM _larder_classes WHERE name = \$1/;
const SECURITY = /SELECT name, permissions, default_acl FROM _larder_classes$/;

test('list() answers the classes it read, even when another request forgets one of them meanwhile', async () => {
  const { db, next } = heldDatabase();
  const classes = new ClassRegistry(db);
  const post = { name: 'Post', fields: { n: { type: 'Number' } } };

  const listed = classes.list();
  (await next(CATALOGUE)).answer([post]);
  // Between the catalogue and the security query, an admin read of Post (GET
  // /1.1/larder/indexes?className=Post) drops it from the cache and reads it again.
  const security = await next(SECURITY);
  classes.forget('Post');
  const found = classes.find('Post');
  security.answer([]);
  assert.deepEqual((await listed).map((c) => c.name), ['Post']);
  (await next(ONE_CLASS)).answer([post]);
  assert.deepEqual(await found, post);
});

test('list() is sorted by name and does not answer classes only the cache still knows', async () => {
  const { db, next } = heldDatabase();
  const classes = new ClassRegistry(db);
  const first = classes.list();
  (await next(CATALOGUE)).answer([{ name: 'b', fields: {} }, { name: 'Gone', fields: {} }, { name: 'a', fields: {} }]);
  (await next(SECURITY)).answer([]);
  assert.deepEqual((await first).map((c) => c.name), ['Gone', 'a', 'b']);
  const second = classes.list();
  (await next(CATALOGUE)).answer([{ name: 'b', fields: {} }, { name: 'a', fields: {} }]);
  (await next(SECURITY)).answer([]);
  assert.deepEqual((await second).map((c) => c.name), ['a', 'b']);
});
