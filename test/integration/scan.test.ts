import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { signCursor } from '../../src/scan/scan-cursor.ts';
import { forEachEngine } from './harness/engines.ts';

type Obj = Record<string, any>;
const TOTAL = 2500;

forEachEngine('scan: GET /1.1/scan/classes/<className>', (h) => {
  const scan = (cls: string, query: Record<string, unknown> = {}, master = true) =>
    h().client.get(`/1.1/scan/classes/${cls}`, query as Record<string, string>, { master });

  /** Follows cursors to the end; returns the pages. */
  async function scanAll(cls: string, query: Record<string, unknown>): Promise<Obj[][]> {
    const pages: Obj[][] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      const res = await scan(cls, cursor ? { ...query, cursor } : query);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      pages.push(res.body.results);
      if (res.body.cursor === null) return pages;
      assert.equal(typeof res.body.cursor, 'string');
      cursor = res.body.cursor;
    }
    throw new Error('scan did not end');
  }

  before(async () => {
    // n repeats (50 distinct values) and is missing on every 97th object: a non-unique key with gaps.
    for (let start = 0; start < TOTAL; start += 1000) {
      const requests = [];
      for (let i = start; i < Math.min(TOTAL, start + 1000); i++) {
        requests.push({ method: 'POST', path: '/1.1/classes/Scanned', body: i % 97 === 0 ? { i, s: `s${i % 10}` } : { i, n: i % 50, s: `s${i % 10}`, big: { k: i } } });
      }
      const res = await h().client.post('/1.1/batch', { requests });
      assert.ok(res.body.every((r: Obj) => r.success), 'seed batch failed');
    }
  });

  test('default order is objectId ascending; 2,500 objects in pages of 1000; the last cursor is null', async () => {
    const pages = await scanAll('Scanned', { limit: 1000 });
    assert.deepEqual(pages.map((p) => p.length), [1000, 1000, 500]);
    const ids = pages.flat().map((o) => o.objectId);
    assert.equal(new Set(ids).size, TOTAL);
    assert.deepEqual(ids, [...ids].sort());
    const first = pages[0][0];
    assert.equal(typeof first.createdAt, 'string');
    assert.equal(first.ACL, undefined);
  });

  test('scan_key=-createdAt pages newest first, every object exactly once', async () => {
    const pages = await scanAll('Scanned', { limit: 1000, scan_key: '-createdAt' });
    const all = pages.flat();
    assert.equal(all.length, TOTAL);
    assert.equal(new Set(all.map((o) => o.objectId)).size, TOTAL);
    for (let k = 1; k < all.length; k++) assert.ok(all[k - 1].createdAt >= all[k].createdAt, `out of order at ${k}`);
  });

  test('a numeric, non-unique scan_key with missing values: ascending and descending, no repeats, no gaps', async () => {
    const asc = (await scanAll('Scanned', { limit: 333, scan_key: 'n' })).flat();
    assert.equal(asc.length, TOTAL);
    assert.equal(new Set(asc.map((o) => o.objectId)).size, TOTAL);
    const missing = Math.ceil(TOTAL / 97);
    // Missing values come last when ascending; within one value, objectId ascends.
    assert.ok(asc.slice(-missing).every((o) => o.n === undefined));
    const present = asc.slice(0, -missing);
    for (let k = 1; k < present.length; k++) {
      const [a, b] = [present[k - 1], present[k]];
      assert.ok(a.n < b.n || (a.n === b.n && a.objectId < b.objectId), `ascending order broken at ${k}`);
    }
    const desc = (await scanAll('Scanned', { limit: 250, scan_key: '-n' })).flat();
    assert.equal(new Set(desc.map((o) => o.objectId)).size, TOTAL);
    assert.ok(desc.slice(0, missing).every((o) => o.n === undefined));
    const rest = desc.slice(missing);
    for (let k = 1; k < rest.length; k++) assert.ok(rest[k - 1].n >= rest[k].n, `descending order broken at ${k}`);
  });

  test('a string scan_key pages byte-wise; where filters the scan', async () => {
    const pages = await scanAll('Scanned', { limit: 100, scan_key: 's', where: { i: { $lt: 300 } } });
    const all = pages.flat();
    assert.equal(all.length, 300);
    for (let k = 1; k < all.length; k++) assert.ok(all[k - 1].s <= all[k].s);
  });

  test('exactly limit rows left gives cursor null (one extra row is read to know)', async () => {
    for (let i = 0; i < 5; i++) await h().client.post('/1.1/classes/ScanFive', { i });
    const all = await scan('ScanFive', { limit: 5 });
    assert.equal(all.body.results.length, 5);
    assert.equal(all.body.cursor, null);
    const first = await scan('ScanFive', { limit: 4 });
    assert.equal(first.body.results.length, 4);
    const second = await scan('ScanFive', { limit: 4, cursor: first.body.cursor });
    assert.deepEqual([second.body.results.length, second.body.cursor], [1, null]);
  });

  test('limit: default 100; outside 1..1000 or not an integer is refused (102)', async () => {
    const res = await scan('Scanned');
    assert.equal(res.body.results.length, 100);
    for (const limit of [0, 1001, -1, 'abc', 2.5]) {
      const bad = await scan('Scanned', { limit });
      assert.deepEqual([bad.status, bad.body.code], [400, 102], String(limit));
    }
  });

  test('an expired cursor is refused with a clear error', async () => {
    const stale = signCursor(h().app.keys.serverSecret, { className: 'Scanned', scanKey: 'objectId', lastValue: '0', lastId: '0', issuedAt: Date.now() - 11 * 60 * 1000 });
    const res = await scan('Scanned', { cursor: stale });
    assert.deepEqual([res.status, res.body.code], [400, 102]);
    assert.match(res.body.error, /expired/);
    const fresh = signCursor(h().app.keys.serverSecret, { className: 'Scanned', scanKey: 'objectId', lastValue: '0', lastId: '0', issuedAt: Date.now() - 9 * 60 * 1000 });
    assert.equal((await scan('Scanned', { cursor: fresh, limit: 1 })).status, 200);
  });

  test('forged, tampered and foreign cursors are refused', async () => {
    const real = (await scan('Scanned', { limit: 10 })).body.cursor as string;
    const [payload, mac] = real.split('.');
    const forgedPayload = Buffer.from(JSON.stringify(['Scanned', 'objectId', null, '0', Date.now()])).toString('base64url');
    const forged = [`${forgedPayload}.${mac}`, `${payload}.${'A'.repeat(mac.length)}`, signCursor('not the secret', { className: 'Scanned', scanKey: 'objectId', lastValue: null, lastId: '0', issuedAt: Date.now() }), 'garbage'];
    for (const cursor of forged) {
      const res = await scan('Scanned', { cursor });
      assert.deepEqual([res.status, res.body.code], [400, 102], cursor);
      assert.match(res.body.error, /Invalid scan cursor/);
    }
    const otherClass = await scan('ScanFive', { cursor: real });
    assert.match(otherClass.body.error, /issued for class 'Scanned'/);
    const otherKey = await scan('Scanned', { cursor: real, scan_key: '-createdAt' });
    assert.match(otherKey.body.error, /issued for scan_key 'objectId'/);
  });

  test('include, order and skip are refused; keys is allowed', async () => {
    for (const q of [{ include: 'x' }, { order: 'i' }, { skip: 5 }]) {
      const res = await scan('Scanned', q);
      assert.deepEqual([res.status, res.body.code], [400, 102], JSON.stringify(q));
    }
    const keyed = await scan('Scanned', { keys: 'i', limit: 3 });
    assert.deepEqual(Object.keys(keyed.body.results[0]).sort(), ['createdAt', 'i', 'objectId', 'updatedAt']);
  });

  test('scan_key: must be a scalar field and must not appear in where', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ scan_key: 'n', where: { n: { $gt: 3 } } }, /must not appear in where/],
      [{ scan_key: '-n', where: { $or: [{ i: 1 }, { n: 2 }] } }, /must not appear in where/],
      [{ scan_key: 'big' }, /type Object/],
      [{ scan_key: 'nope' }, /not a field/],
      [{ scan_key: '__proto__' }, /not a field/],
    ];
    for (const [q, msg] of cases) {
      const res = await scan('Scanned', q);
      assert.deepEqual([res.status, res.body.code], [400, 102], JSON.stringify(q));
      assert.match(res.body.error, msg);
    }
  });

  test('only the master key may scan (403, code 1)', async () => {
    const res = await scan('Scanned', {}, false);
    assert.deepEqual([res.status, res.body.code], [403, 1]);
    assert.match(res.body.error, /master key/);
  });

  test('a class that does not exist scans as empty', async () => {
    const res = await scan('NeverCreatedScan');
    assert.deepEqual([res.status, res.body], [200, { results: [], cursor: null }]);
  });

  test('ACLs do not hide objects from a scan (master key)', async () => {
    await h().client.post('/1.1/classes/ScanAcl', { v: 1, ACL: {} }, { master: true });
    const res = await scan('ScanAcl');
    assert.equal(res.body.results.length, 1);
  });
});
