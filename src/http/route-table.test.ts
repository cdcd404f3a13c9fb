import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouteTable } from './route-table.ts';
import type { Route } from './route.ts';

const handler = async () => ({ status: 200, body: {} });
const routes: Route[] = [
  { method: 'GET', path: '/1.1/users/:objectId', handler },
  { method: 'GET', path: '/1.1/users/me', handler },
  { method: 'PUT', path: '/1.1/users/:objectId', handler },
  { method: 'GET', path: '/1.1/classes/:className/:objectId', handler },
];
const table = new RouteTable(routes);

test('a literal segment beats a parameter', () => {
  const m = table.match('GET', '/1.1/users/me');
  assert.equal(m.kind, 'found');
  if (m.kind === 'found') assert.equal(m.route.path, '/1.1/users/me');
});

test('parameters are decoded', () => {
  const m = table.match('GET', '/1.1/classes/A/a%2Cb');
  assert.equal(m.kind, 'found');
  if (m.kind === 'found') assert.deepEqual(m.params, { className: 'A', objectId: 'a,b' });
});

test('wrong method and unknown path are told apart', () => {
  assert.deepEqual(table.match('DELETE', '/1.1/users/x'), { kind: 'wrong-method', allowed: ['GET', 'PUT'] });
  assert.deepEqual(table.match('GET', '/1.1/nothing'), { kind: 'not-found' });
  assert.deepEqual(table.match('GET', '/1.1/classes/%E0%A4%A'), { kind: 'not-found' });
});
