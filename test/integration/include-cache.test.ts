import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql, type Sql } from '../../src/sql/fragment.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { parsedAnswer, seedObject, userPointer } from './harness/include-helpers.ts';
import { captured } from './harness/statement-spy.ts';
import { signUp } from './harness/user-helpers.ts';

function text(s: Sql): string {
  return s.toQuery().text;
}

// The joint statement's owners branch: documents (`(data - $n::text[])::text`) or versions only.
function readsDocuments(s: Sql): boolean {
  return /WITH page[\s\S]*UNION ALL[\s\S]*\(data - \$\d+::text\[\]\)::text/.test(text(s));
}

// Included objects' documents are kept in the server by row version (src/objects/included-cache.ts):
// once a head's objects were all known, its statement reads their versions only. Every reader must
// still get exactly what reading the documents gives: changes, ACL changes and deletes show on the
// next request, each reader's hidden and client-invisible fields stay out, and the read ACL is
// applied by the statement on every request.
forEachEngine('include: documents kept by row version', (h: () => Harness) => {
  test('unchanged owners are read as versions only; updates, ACL changes and deletes show at once, for every reader', async () => {
    const { client, db } = h();
    const email = `a-${Date.now()}@example.com`;
    const a = await signUp(h(), { email, nick: 'first' });
    const b = await signUp(h(), { nick: 'bee' });
    for (let n = 0; n < 6; n++) await seedObject(h(), 'IncCache', { n, score: n, owner: userPointer(n % 2 ? a.objectId : b.objectId) });
    // An index on n: the anonymous reader's page statement may then run prepared.
    assert.equal((await client.post('/1.1/larder/classes/IncCache/indexes', { field: 'n' }, { master: true })).status, 201);
    const params = { where: JSON.stringify({ n: { $gte: 0, $lt: 100 } }), order: '-score', include: 'owner' };

    /** Asks as `who`, checks the answer against the parsing path's, returns the owners by n. */
    const ask = async (master: boolean, why: string): Promise<Map<number, Record<string, unknown>>> => {
      const res = await client.get('/1.1/classes/IncCache', params, { master });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(JSON.stringify(res.body), JSON.stringify(await parsedAnswer(h(), 'IncCache', params, master)), `${why}: the answer is the parsing path's`);
      return new Map(res.body.results.map((o: { n: number; owner: Record<string, unknown> }) => [o.n, o.owner]));
    };

    for (let i = 0; i < 7; i++) await ask(false, `anonymous, run ${i + 1}`);
    const warm = await captured(db, () => ask(false, 'anonymous, warm'));
    const joint = warm.filter((s) => text(s).includes('WITH page'));
    // The answer and the batch's (the parsing path takes the same joint statement).
    assert.equal(joint.length, 2, 'a joint statement per answer');
    for (const s of joint) assert.ok(!readsDocuments(s), `the owners' documents are not read again while unchanged: ${text(s).slice(-400)}`);
    assert.ok(!warm.some((s) => text(s).includes('FROM "_User"') && !text(s).includes('WITH page')), 'nor by a statement of their own');
    let owners = await ask(false, 'anonymous');
    assert.equal(owners.get(1)?.nick, 'first');
    assert.ok(!('email' in (owners.get(1) ?? {})), 'email is client-invisible');

    // The master key's objects keep email: another entry, never shown to the anonymous reader.
    for (let i = 0; i < 3; i++) assert.equal((await ask(true, `master, run ${i + 1}`)).get(1)?.email, email);
    owners = await ask(false, 'anonymous after the master key');
    assert.ok(!('email' in (owners.get(1) ?? {})), 'the master key’s email never reaches the anonymous reader');

    // An update: the next answer has it, and the one changed owner is read again.
    assert.equal((await client.put(`/1.1/users/${a.objectId}`, { nick: 'second' }, { master: true })).status, 200);
    const afterUpdate = await captured(db, async () => assert.equal((await ask(false, 'after an update')).get(1)?.nick, 'second'));
    const reread = afterUpdate.filter((s) => text(s).includes('FROM "_User"') && !text(s).includes('WITH page'));
    assert.equal(reread.length, 1, 'the changed owner is read by one more statement');
    assert.ok(reread[0].toQuery().values.some((v) => JSON.stringify(v) === JSON.stringify([a.objectId])), 'only the changed owner is read');
    assert.equal((await ask(false, 'again')).get(1)?.nick, 'second');
    assert.equal((await ask(true, 'master after an update')).get(1)?.nick, 'second');

    // Two updates of the row in one transaction: one xmin, two places.
    await db.transaction(async (tx) => {
      await tx.query(sql`UPDATE "_User" SET data = data || '{"nick": "third"}'::jsonb WHERE "objectId" = ${a.objectId}`);
      await tx.query(sql`UPDATE "_User" SET data = data || '{"nick": "fourth"}'::jsonb WHERE "objectId" = ${a.objectId}`);
    });
    for (let i = 0; i < 3; i++) assert.equal((await ask(false, `after two updates in one transaction, run ${i + 1}`)).get(1)?.nick, 'fourth');

    // Private to its user: the anonymous reader gets the pointer, the master key the object.
    assert.equal((await client.put(`/1.1/users/${a.objectId}`, { ACL: { [a.objectId]: { read: true, write: true } } }, { master: true })).status, 200);
    for (let i = 0; i < 3; i++) {
      owners = await ask(false, `private owner, run ${i + 1}`);
      assert.deepEqual(owners.get(1), userPointer(a.objectId), 'the private owner stays a pointer');
      assert.equal(owners.get(0)?.nick, 'bee');
      assert.equal((await ask(true, `private owner, master, run ${i + 1}`)).get(1)?.nick, 'fourth');
    }
    // The ACL alone changed back (the document is the same): included again.
    await db.query(sql`UPDATE "_User" SET rperm = ARRAY['*'] WHERE "objectId" = ${a.objectId}`);
    for (let i = 0; i < 3; i++) assert.equal((await ask(false, `public again, run ${i + 1}`)).get(1)?.nick, 'fourth');

    // A deleted owner stays a pointer, also after its document was kept.
    assert.equal((await client.delete(`/1.1/users/${b.objectId}`, { master: true })).status, 200);
    for (let i = 0; i < 3; i++) {
      owners = await ask(false, `deleted owner, run ${i + 1}`);
      assert.deepEqual(owners.get(0), userPointer(b.objectId));
      assert.deepEqual((await ask(true, `deleted owner, master, run ${i + 1}`)).get(0), userPointer(b.objectId));
    }
  });

  test('a private owner kept for the master key is never shown to the anonymous reader, whose statement reads versions only', async () => {
    const { client, db } = h();
    const open = await signUp(h(), { nick: 'open' });
    const secret = await signUp(h(), { nick: 'secret' });
    assert.equal((await client.put(`/1.1/users/${secret.objectId}`, { ACL: { [secret.objectId]: { read: true, write: true } } }, { master: true })).status, 200);
    for (let n = 0; n < 4; n++) await seedObject(h(), 'IncCacheAcl', { n, score: n, owner: userPointer(n % 2 ? secret.objectId : open.objectId) });
    assert.equal((await client.post('/1.1/larder/classes/IncCacheAcl/indexes', { field: 'n' }, { master: true })).status, 201);
    const params = { where: JSON.stringify({ n: { $gte: 0, $lt: 100 } }), order: '-score', include: 'owner' };
    for (let i = 0; i < 8; i++) {
      const master = await client.get('/1.1/classes/IncCacheAcl', params, { master: true });
      assert.equal(master.body.results[0].owner.nick, 'secret');
    }
    const seen = await captured(db, async () => {
      for (let i = 0; i < 8; i++) {
        const res = await client.get('/1.1/classes/IncCacheAcl', params);
        assert.equal(res.status, 200, res.text.slice(0, 300));
        assert.ok(!res.text.includes('secret'), `run ${i + 1}: the private owner leaked: ${res.text.slice(0, 400)}`);
        assert.deepEqual(res.body.results[0].owner, userPointer(secret.objectId));
        assert.equal(res.body.results[1].owner.nick, 'open');
      }
    });
    assert.ok(seen.some((s) => text(s).includes('WITH page') && !readsDocuments(s)), 'the anonymous reader read versions only');
  });
});
