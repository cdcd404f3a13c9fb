import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
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

/** The table's answer as it was before routes were keyed by their leading segments: every route of the path's length, in order. */
function reference(all: readonly Route[], method: string, path: string): ReturnType<RouteTable['match']> {
  const split = (p: string) => p.split('/').filter((s) => s !== '');
  let segs: string[];
  try {
    segs = split(path).map((s) => decodeURIComponent(s));
  } catch {
    return { kind: 'not-found' };
  }
  const allowed: Route['method'][] = [];
  let best: { route: Route; params: Record<string, string>; statics: number } | undefined;
  for (const route of all) {
    const pattern = split(route.path);
    if (pattern.length !== segs.length) continue;
    const params: Record<string, string> = {};
    if (!pattern.every((p, i) => (p.startsWith(':') ? segs[i] !== '' && (params[p.slice(1)] = segs[i]) !== undefined : p === segs[i]))) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    const statics = pattern.filter((p) => !p.startsWith(':')).length;
    if (!best || statics > best.statics) best = { route, params, statics };
  }
  if (best) return { kind: 'found', route: best.route, params: best.params };
  return allowed.length ? { kind: 'wrong-method', allowed } : { kind: 'not-found' };
}

test('keyed by leading segments, the table answers as trying every route did (routes with parameters first too)', () => {
  const all: Route[] = [
    ...routes,
    { method: 'POST', path: '/1.1/classes/:className', handler },
    { method: 'GET', path: '/:version/ping', handler },
    { method: 'POST', path: '/1.1/:anything', handler },
    { method: 'GET', path: '/1.1/classes', handler },
    { method: 'GET', path: '/1.1', handler },
    { method: 'DELETE', path: '/1.1/users/:objectId', handler },
    { method: 'GET', path: '/:a/:b/:c', handler },
  ];
  const t = new RouteTable(all);
  const segment = fc.constantFrom('1.1', '1', 'users', 'me', 'classes', 'ping', 'x', 'A', '%41', '%E0%A4%A', '');
  const path = fc.array(segment, { maxLength: 5 }).map((s) => `/${s.join('/')}`);
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE');
  fc.assert(
    fc.property(method, path, (m, p) => {
      assert.deepEqual(t.match(m, p), reference(all, m, p), `${m} ${p}`);
    }),
    { numRuns: 3000 },
  );
});
