import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPreparedShape } from '../../src/storage/prepared-statements.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { captured } from './harness/statement-spy.ts';
import { signUp } from './harness/user-helpers.ts';

const WHERE = JSON.stringify({ n: { $gte: 10, $lt: 30 } });

function ids(res: { status: number; body: { results: { objectId: string }[] } }): string[] {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.results.map((o) => o.objectId);
}

// Class queries of the anonymous reader (and the master key) run as prepared statements when their
// shape is safe for a generic plan (src/plan/reusable-shape.ts). PostgreSQL switches a prepared
// statement to its generic plan after five runs: the ACL must hold in that plan as in the custom ones.
forEachEngine('prepared class queries', (h: () => Harness) => {
  test('after more than five runs the anonymous reader still never sees a private row; users and the master key see theirs; answers match', async () => {
    const { client, db } = h();
    const owner = await signUp(h());
    const publicIds: string[] = [];
    for (let n = 0; n < 40; n++) {
      const res = await client.post('/1.1/classes/PrepAcl', { n, score: n % 7, label: `p${n}` });
      assert.equal(res.status, 201);
      if (n >= 10 && n < 30) publicIds.push(res.body.objectId);
    }
    // Inside the range and first in the order (score 100): a leak would be on top of the page.
    const hidden = await client.post('/1.1/classes/PrepAcl', { n: 15, score: 100, label: 'private', ACL: { [owner.objectId]: { read: true, write: true } } });
    assert.equal(hidden.status, 201);
    // An index on n (which also analyzes the table: the statistics show mostly public rows).
    assert.equal((await client.post('/1.1/larder/classes/PrepAcl/indexes', { field: 'n' }, { master: true })).status, 201);

    const query = { where: WHERE, order: '-score', limit: '10' };
    let anonymousPage: string[] | undefined;
    const statements = await captured(db, async () => {
      for (let i = 0; i < 12; i++) {
        const page = ids(await client.get('/1.1/classes/PrepAcl', query));
        assert.ok(!page.includes(hidden.body.objectId), `run ${i + 1}: the private row leaked to the anonymous reader`);
        anonymousPage ??= page;
        assert.deepEqual(page, anonymousPage, `run ${i + 1}: the same answer every time`);
        const included = await client.get('/1.1/classes/PrepAcl', { ...query, keys: 'label', count: '1' });
        assert.equal(included.body.count, 20);
        assert.ok(!ids(included).includes(hidden.body.objectId));
      }
    });
    assert.ok(statements.some(isPreparedShape), 'the anonymous page statement ran prepared');
    assert.equal(anonymousPage?.length, 10);
    assert.ok(anonymousPage?.every((id) => publicIds.includes(id)));

    const userStatements = await captured(db, async () => {
      for (let i = 0; i < 8; i++) {
        const page = ids(await client.get('/1.1/classes/PrepAcl', query, { session: owner.sessionToken }));
        assert.deepEqual(page, [hidden.body.objectId, ...(anonymousPage ?? []).slice(0, 9)], 'the owner sees the private row first, then the same public rows');
      }
    });
    assert.ok(!userStatements.some(isPreparedShape), 'a reader with a user is never prepared');

    for (let i = 0; i < 8; i++) {
      const page = ids(await client.get('/1.1/classes/PrepAcl', query, { master: true }));
      assert.deepEqual(page, [hidden.body.objectId, ...(anonymousPage ?? []).slice(0, 9)]);
    }
    // After the master key's prepared runs, the anonymous reader's statement is unchanged.
    assert.deepEqual(ids(await client.get('/1.1/classes/PrepAcl', query)), anonymousPage);
    // Other readers' rows: another user sees what the anonymous reader sees.
    const other = await signUp(h());
    assert.deepEqual(ids(await client.get('/1.1/classes/PrepAcl', query, { session: other.sessionToken })), anonymousPage);

    // An index on the ordered field is a second way into the table (read from the catalogue after
    // `index add`): the same query now runs unprepared, with the same answer.
    assert.equal((await client.post('/1.1/larder/classes/PrepAcl/indexes', { field: 'score' }, { master: true })).status, 201);
    const afterIndex = await captured(db, async () => assert.deepEqual(ids(await client.get('/1.1/classes/PrepAcl', query)), anonymousPage));
    assert.ok(afterIndex.length > 0 && !afterIndex.some(isPreparedShape), 'two indexes serve it: not prepared');
    const byScore = await captured(db, async () => ids(await client.get('/1.1/classes/PrepAcl', { where: JSON.stringify({ score: { $gte: 3 } }), order: 'score' })));
    assert.ok(byScore.some(isPreparedShape), 'a range on score ordered by score: one index, prepared');
  });
});
