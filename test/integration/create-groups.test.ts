import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from './harness/engines.ts';
import { makeContext } from '../../src/http/dispatch.ts';
import { CREATES_PENDING, createsWaiting, insertTogether } from '../../src/objects/combine-creates.ts';
import { insertPrepared, prepareCreate, type PreparedCreate } from '../../src/objects/create-object.ts';
import { settle } from '../../src/objects/same-row-queue.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { ident, sql } from '../../src/sql/fragment.ts';

// Creates that arrive while inserts of their class are in flight go as one INSERT
// (src/objects/combine-creates.ts); each answers as it would alone.
forEachEngine('concurrent creates', (h) => {
  const CLASS = 'CreateGroup';
  const path = `/1.1/classes/${CLASS}`;

  /** Holds CREATES_PENDING inserts of the class in flight, so that the next creates wait and go together. */
  function holdInFlight() {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const blockers = Array.from({ length: CREATES_PENDING }, (_, i) => insertTogether(h().app, CLASS, i, async () => held));
    return { release: () => (release(), Promise.all(blockers)) };
  }
  async function untilWaiting(n: number): Promise<void> {
    for (let i = 0; i < 2000 && createsWaiting(h().app, CLASS) < n; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(createsWaiting(h().app, CLASS), n, 'the creates wait for the next group');
  }
  const rowsOf = (ids: readonly string[]) =>
    h().db.query<{ objectId: string; x: string }>(sql`SELECT "objectId", xmin::text AS x FROM ${ident(CLASS)} WHERE "objectId" = ANY(${ids}::text[])`);

  test('waiting creates go as one INSERT; each keeps its own fields, ACL and createdAt', async () => {
    const first = await h().client.post(path, { n: 0, s: 'first', ACL: { '*': { read: true } } });
    assert.equal(first.status, 201, 'the class and its fields are known from here on');
    const { release } = holdInFlight();
    const acls = [{ '*': { read: true } }, { '*': { read: true, write: true } }, { 'role:admin': { read: true } }];
    const posts = acls.map((ACL, i) => h().client.post(path, { n: i + 1, s: `s${i + 1}`, ACL }));
    await untilWaiting(3);
    await release();
    const answers = await Promise.all(posts);
    for (const a of answers) assert.equal(a.status, 201, JSON.stringify(a.body));
    const ids = answers.map((a) => a.body.objectId as string);
    assert.equal(new Set(ids).size, 3);
    const rows = await rowsOf(ids);
    assert.equal(rows.length, 3);
    assert.equal(new Set(rows.map((r) => r.x)).size, 1, 'one INSERT (one transaction) wrote the three');
    for (const [i, a] of answers.entries()) {
      const got = await h().client.get(`${path}/${ids[i]}`, { returnACL: 'true' }, { master: true });
      assert.equal(got.body.n, i + 1);
      assert.equal(got.body.s, `s${i + 1}`);
      assert.deepEqual(got.body.ACL, acls[i]);
      assert.equal(got.body.createdAt, a.body.createdAt);
      assert.equal(got.body.updatedAt, a.body.createdAt);
    }
    // The row ACLs hold: without the master key the role-only object is not readable.
    assert.deepEqual((await h().client.get(`${path}/${ids[2]}`)).body, {});
    assert.equal((await h().client.get(`${path}/${ids[0]}`)).body.n, 1);
  });

  test('waiting creates without an ACL (one shared default ACL) go as one INSERT, group after group; each keeps its own fields and createdAt', async () => {
    assert.equal((await h().client.post(path, { n: 0, s: 'first', tags: ['t0'], when: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } })).status, 201, 'the class and its fields are known from here on');
    // Two groups in turn: the group's statement is prepared, so the second runs it again.
    for (const round of [1, 2]) {
      const { release } = holdInFlight();
      const posts = [1, 2, 3, 4].map((i) => h().client.post(path, { n: round * 10 + i, s: `r${round}-${i}`, tags: [`t${i}`], when: { __type: 'Date', iso: `2020-01-0${i}T00:00:00.000Z` } }));
      await untilWaiting(4);
      await release();
      const answers = await Promise.all(posts);
      for (const a of answers) assert.equal(a.status, 201, JSON.stringify(a.body));
      const ids = answers.map((a) => a.body.objectId as string);
      const rows = await rowsOf(ids);
      assert.equal(rows.length, 4);
      assert.equal(new Set(rows.map((r) => r.x)).size, 1, 'one INSERT (one transaction) wrote the four');
      for (const [k, a] of answers.entries()) {
        const i = k + 1;
        const got = await h().client.get(`${path}/${ids[k]}`, { returnACL: 'true' }, { master: true });
        assert.equal(got.body.n, round * 10 + i);
        assert.equal(got.body.s, `r${round}-${i}`);
        assert.deepEqual(got.body.tags, [`t${i}`]);
        assert.deepEqual(got.body.when, { __type: 'Date', iso: `2020-01-0${i}T00:00:00.000Z` });
        assert.deepEqual(got.body.ACL, { '*': { read: true, write: true } });
        assert.equal(got.body.createdAt, a.body.createdAt);
        assert.equal(got.body.updatedAt, a.body.createdAt);
      }
    }
  });

  test('a group refused for one row runs each create alone: only that create fails', async () => {
    const taken = (await h().client.post(path, { n: 9, s: 'taken' })).body.objectId as string;
    const ctx = makeContext(h().app, { credentials: {}, production: true }, true, 'http://127.0.0.1');
    const rows: PreparedCreate[] = [];
    for (const n of [10, 11, 12]) rows.push(await prepareCreate(ctx, CLASS, { n, s: `g${n}` }));
    rows[1].objectId = taken; // a duplicate id: PostgreSQL refuses the group's INSERT
    const { release } = holdInFlight();
    const group = rows.map((r) => settle(() => insertTogether(h().app, CLASS, r, (rs) => insertPrepared(ctx, CLASS, rs))));
    await untilWaiting(3);
    await release();
    const got = await Promise.all(group);
    assert.deepEqual(got.map((s) => (s.ok ? 'ok' : (s.error as ApiError).errorName)), ['ok', 'duplicateValue', 'ok']);
    const stored = await rowsOf([rows[0].objectId, rows[2].objectId]);
    assert.equal(stored.length, 2);
    assert.equal((await h().client.get(`${path}/${taken}`, undefined, { master: true })).body.s, 'taken', 'the existing object is untouched');
  });
});
