import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routeFamily } from './route-family.ts';

const KNOWN = new Set(['classes', 'users', 'batch', 'friend', 'larder']);

test('API paths: the first segment after the version, when the route table knows it', () => {
  const cases: [string, string, string][] = [
    ['/1.1/*', '/1.1/classes/Game/abc?where=x', 'classes'],
    ['/1/*', '/1/users/me', 'users'],
    ['/1.1/*', '/1.1/batch', 'batch'],
    ['/1.1/*', '/1.1/larder/settings', 'larder'],
    ['/friend/*', '/friend/v2/follow', 'friend'],
    ['/1.1/*', '/1.1/Robert%27);DROP/x', 'other'],
    ['/1.1/*', '/1.1/', 'other'],
    ['/1.1/*', '/1.1/classes-but-not', 'other'],
    ['/1.1/*', '//1.1//classes//Game', 'classes'],
    ['/1.1/*', '/1.1?x=/classes', 'other'],
    ['/1.1/*', '/1.1/users?next=/batch/x', 'users'],
    ['/1.1/*', '/1.1/batch?', 'batch'],
    ['/1.1/*', '/1.1', 'other'],
    ['/friend/*', '/friend', 'friend'],
    ['/1.1/*', '/12/classes', 'classes'],
    ['/1.1/*', '/1.1.1/classes', 'other'],
  ];
  for (const [route, path, want] of cases) assert.equal(routeFamily(route, path, KNOWN), want, path);
});

test("the server's own routes and unmatched requests", () => {
  assert.equal(routeFamily('/health', '/health', KNOWN), 'health');
  assert.equal(routeFamily('/health/live', '/health/live', KNOWN), 'health');
  assert.equal(routeFamily('/metrics', '/metrics', KNOWN), 'metrics');
  assert.equal(routeFamily('/console/*', '/console/app.js', KNOWN), 'console');
  assert.equal(routeFamily('/larder/export/:file', '/larder/export/x.tar.gz', KNOWN), 'export-download');
  assert.equal(routeFamily('/apps/:appId/verify_email/:token', '/apps/a/verify_email/t', KNOWN), 'pages');
  assert.equal(routeFamily(undefined, '/wp-admin', KNOWN), 'not-found');
  assert.equal(routeFamily('/1.1/functions/:name', '/1.1/functions/hello', KNOWN), 'functions');
  assert.equal(routeFamily('/1/call/:name', '/1/call/hello', KNOWN), 'call');
});
