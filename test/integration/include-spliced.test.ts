import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { parsedAnswer, seedObject, userPointer } from './harness/include-helpers.ts';
import { signUp, type SignedUpUser } from './harness/user-helpers.ts';

const MISSING = '0123456789abcdef01234567';
const HIDDEN_USER_FIELDS = ['password', 'sessionToken', 'authData', 'salt'];
const NICK = 'Zoë 😀 "quoted" \\ back\nline \u0001 \u2028';

// The spliced answer keeps jsonb's text of the page's documents (`"key": value`) and writes the
// included object after it compactly; the parsing path's JSON.stringify writes `"key":value`.
function splicedIn(text: string, field: string): boolean {
  return text.includes(`"${field}": {"__type":"Pointer","className":"_User",`);
}

function parsedOnly(text: string): boolean {
  return !text.includes('": ');
}

/**
 * Checks, over several runs (the statement goes generic after five), that the answer is spliced
 * (or not, `spliced`) and is the parsing path's answer: same keys in the same order, same values.
 */
async function sameAsParsed(h: Harness, className: string, params: Record<string, string>, opts: { master: boolean; spliced: boolean; runs?: number }): Promise<{ text: string; body: { results: Record<string, unknown>[] } }> {
  let last: { text: string; body: { results: Record<string, unknown>[] } } | undefined;
  for (let i = 0; i < (opts.runs ?? 7); i++) {
    const res = await h.client.get(`/1.1/classes/${className}`, params, { master: opts.master });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    if (opts.spliced) assert.ok(splicedIn(res.text, 'owner'), `run ${i + 1}: the answer was spliced: ${res.text.slice(0, 300)}`);
    else assert.ok(parsedOnly(res.text), `run ${i + 1}: the answer took the parsing path: ${res.text.slice(0, 300)}`);
    const parsed = await parsedAnswer(h, className, params, opts.master);
    // JSON.stringify of both parsed answers: equal values and the same key order at every level.
    assert.equal(JSON.stringify(res.body), JSON.stringify(parsed), `run ${i + 1}: spliced and parsed answers differ`);
    last = res;
  }
  return last as { text: string; body: { results: Record<string, unknown>[] } };
}

async function privateUser(h: Harness): Promise<SignedUpUser> {
  const u = await signUp(h, { nick: 'hidden-from-you' });
  const made = await h.client.put(`/1.1/users/${u.objectId}`, { ACL: { [u.objectId]: { read: true, write: true } } }, { master: true });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  return u;
}

// A class query with include on a Pointer field, read with its page in one prepared statement
// (page-includes.ts), is answered by splicing the included objects' text into the page's
// (src/objects/splice-includes.ts). The answer must be the parsing path's, with the same
// guarantees: hidden and client-invisible fields, the owner's ACL, missing owners, files.
forEachEngine('include answered by splicing text', (h: () => Harness) => {
  test('the spliced answer equals the parsed one: hidden fields, private and missing owners, dates, geopoints, unicode', async () => {
    const { client } = h();
    const email = `open-${Date.now()}@example.com`;
    const open = await signUp(h(), {
      email,
      nick: NICK,
      born: { __type: 'Date', iso: '2001-02-03T04:05:06.789Z' },
      home: { __type: 'GeoPoint', latitude: 48.5, longitude: -2.25 },
      big: 1e21,
      tiny: 0.1,
      tags: ['a', 'ü'],
      nested: { owner: 'x', deep: [1, { k: null }] },
    });
    const authed = await client.put(`/1.1/users/${open.objectId}`, { authData: { weixin: { openid: 'o1', access_token: 't1' } } }, { master: true });
    assert.equal(authed.status, 200, JSON.stringify(authed.body));
    const secret = await privateUser(h());
    const ownerOf = [open.objectId, secret.objectId, MISSING];
    for (let n = 0; n < 9; n++) {
      await seedObject(h(), 'IncSplice', {
        n,
        score: n % 4,
        owner: userPointer(ownerOf[n % 3]),
        title: `t${n} "owner": ${JSON.stringify(userPointer(open.objectId))} ✓`,
        when: { __type: 'Date', iso: `2020-01-0${n + 1}T00:00:00.000Z` },
        at: { __type: 'GeoPoint', latitude: n, longitude: -n },
        ratio: n / 3,
      });
    }
    await seedObject(h(), 'IncSplice', { n: 20, score: 9, owner: null });
    await seedObject(h(), 'IncSplice', { n: 21, score: 9 });
    assert.equal((await client.post('/1.1/larder/classes/IncSplice/indexes', { field: 'n' }, { master: true })).status, 201);
    const params = { where: JSON.stringify({ n: { $gte: 0, $lt: 100 } }), order: '-score,n', include: 'owner' };

    const anon = await sameAsParsed(h(), 'IncSplice', params, { master: false, spliced: true });
    assert.equal(anon.body.results.length, 11);
    assert.ok(!anon.text.includes(secret.username) && !anon.text.includes('hidden-from-you'), 'the private owner leaked');
    for (const o of anon.body.results) {
      const owner = o.owner as Record<string, unknown> | null | undefined;
      const n = o.n as number;
      if (n >= 20) {
        assert.equal(owner ?? null, null);
        continue;
      }
      if (n % 3 !== 0) {
        assert.deepEqual(owner, userPointer(ownerOf[n % 3]), `owner of n=${n} stays a pointer`);
        continue;
      }
      assert.ok(owner);
      assert.equal(owner.username, open.username);
      assert.equal(owner.nick, NICK);
      assert.deepEqual(owner.born, { __type: 'Date', iso: '2001-02-03T04:05:06.789Z' });
      assert.deepEqual(owner.home, { __type: 'GeoPoint', latitude: 48.5, longitude: -2.25 });
      assert.equal(owner.big, 1e21);
      for (const f of [...HIDDEN_USER_FIELDS, 'email']) assert.ok(!(f in owner), `${f} of an included user is not shown to the anonymous reader`);
    }

    const master = await sameAsParsed(h(), 'IncSplice', { ...params, count: '1' }, { master: true, spliced: true });
    const shown = master.body.results.find((o) => o.n === 0)?.owner as Record<string, unknown>;
    assert.equal(shown.email, email, 'the master key reads client-invisible fields');
    assert.deepEqual(shown.authData, { weixin: { openid: 'o1', access_token: 't1' } }, 'the master key reads authData');
    for (const f of ['password', 'sessionToken', 'salt']) assert.ok(!(f in shown), `${f} stays hidden from the master key`);
    assert.equal((master.body.results.find((o) => o.n === 1)?.owner as Record<string, unknown>).username, secret.username, 'the master key reads the private owner');
  });

  test('nested pointers stay; files and Relation fields in included objects take the parsing path and answer the same', async () => {
    const { client } = h();
    const owner = await signUp(h(), { nick: 'n' });
    const file = await client.post('/1.1/files', { name: 'a.png', metaData: { owner: 'unknown', __source: 'external', size: 0 }, url: 'https://x.example.com/a.png' });
    assert.equal(file.status, 201, JSON.stringify(file.body));
    const withFile = await signUp(h(), { pic: { __type: 'File', id: file.body.objectId } });
    // The same pointer nested under a key of the same name (before the top-level one in jsonb's
    // order) and in a string: only the top-level member is replaced.
    await seedObject(h(), 'IncSpliceOdd', { n: 1, a: { owner: userPointer(owner.objectId) }, s: `"owner": ${JSON.stringify(userPointer(owner.objectId))}`, owner: userPointer(owner.objectId) });
    await seedObject(h(), 'IncSpliceOdd', { n: 2, owner: userPointer(owner.objectId) });
    assert.equal((await client.post('/1.1/larder/classes/IncSpliceOdd/indexes', { field: 'n' }, { master: true })).status, 201);
    const params = { where: JSON.stringify({ n: { $gte: 0 } }), order: 'n', include: 'owner' };
    const twice = await sameAsParsed(h(), 'IncSpliceOdd', params, { master: false, spliced: true, runs: 6 });
    assert.equal((twice.body.results[0].owner as Record<string, unknown>).nick, 'n');
    assert.deepEqual(twice.body.results[0].a, { owner: userPointer(owner.objectId) });

    // A File in an included object: files are expanded on parsed objects.
    await seedObject(h(), 'IncSpliceFile', { n: 1, owner: userPointer(withFile.objectId) });
    assert.equal((await client.post('/1.1/larder/classes/IncSpliceFile/indexes', { field: 'n' }, { master: true })).status, 201);
    const files = await sameAsParsed(h(), 'IncSpliceFile', params, { master: false, spliced: false, runs: 6 });
    const pic = (files.body.results[0].owner as Record<string, Record<string, unknown>>).pic;
    assert.equal(pic.url, 'https://x.example.com/a.png', 'the included file is expanded');

    // A Relation field on the included class adds its marker per object: parsing path.
    const team = await seedObject(h(), 'IncSpliceTeam', { name: 'blue', members: { __op: 'AddRelation', objects: [userPointer(owner.objectId)] } });
    await seedObject(h(), 'IncSpliceRel', { n: 1, owner: { __type: 'Pointer', className: 'IncSpliceTeam', objectId: team } });
    assert.equal((await client.post('/1.1/larder/classes/IncSpliceRel/indexes', { field: 'n' }, { master: true })).status, 201);
    const rel = await client.get('/1.1/classes/IncSpliceRel', params);
    assert.ok(parsedOnly(rel.text), rel.text);
    assert.deepEqual((rel.body.results[0].owner as Record<string, unknown>).members, { __type: 'Relation', className: '_User' });
  });
});
