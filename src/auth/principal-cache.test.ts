import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppScope } from '../app-scope.ts';
import { defaultSettings } from '../settings/app-settings.ts';
import { MAX_CACHED_SESSIONS, PRINCIPAL_TTL_MS, PrincipalCache, principalCache } from './principal-cache.ts';

const alice = { master: false, userId: 'alice', readers: ['*', 'alice', 'role:A'] };
const bob = { master: false, userId: 'bob', readers: ['*', 'bob'] };

test('put then get; entries expire after the TTL', () => {
  const c = new PrincipalCache();
  c.put('t1', alice, c.mark(), 1000);
  assert.deepEqual(c.get('t1', 1001), alice);
  assert.equal(c.get('t1', 1000 + PRINCIPAL_TTL_MS), undefined);
  assert.equal(c.size, 0);
});

test('a lookup that began before an invalidation is not cached after it', () => {
  const c = new PrincipalCache();
  const mark = c.mark();
  c.clear();
  c.put('t1', alice, mark);
  assert.equal(c.get('t1'), undefined);
  const mark2 = c.mark();
  c.dropUser('someone-else');
  c.put('t1', alice, mark2);
  assert.equal(c.get('t1'), undefined, 'any invalidation counts');
});

test('dropUser forgets every token of that user only; clear forgets all', () => {
  const c = new PrincipalCache();
  c.put('a1', alice, c.mark());
  c.put('a2', alice, c.mark());
  c.put('b1', bob, c.mark());
  c.dropUser('alice');
  assert.equal(c.get('a1'), undefined);
  assert.equal(c.get('a2'), undefined);
  assert.deepEqual(c.get('b1'), bob);
  c.clear();
  assert.equal(c.get('b1'), undefined);
});

test('anonymous principals are never cached; the size is bounded', () => {
  const c = new PrincipalCache();
  c.put('x', { master: false, readers: ['*'] }, c.mark());
  assert.equal(c.size, 0);
  for (let i = 0; i <= MAX_CACHED_SESSIONS; i++) c.put(`t${i}`, bob, c.mark());
  assert.equal(c.size, MAX_CACHED_SESSIONS);
  assert.equal(c.get('t0'), undefined, 'the oldest went first');
  assert.deepEqual(c.get(`t${MAX_CACHED_SESSIONS}`), bob);
});

test('one cache per app scope', () => {
  const a = { scope: new AppScope(defaultSettings()) };
  const b = { scope: new AppScope(defaultSettings()) };
  assert.equal(principalCache(a), principalCache(a));
  assert.notEqual(principalCache(a), principalCache(b));
});
