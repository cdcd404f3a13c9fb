// Every query helper of the official JS SDK's AV.Query against a fixed data set, asserting the
// objects that come back and their order.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { AV, forEachEngineWithSdk, pluck, rejectsWithCode, saved } from './sdk.ts';

interface ItemSpec {
  name: string;
  n: number;
  grp: string;
  tags: string[];
  when: string;
  loc: [number, number];
  owner: 0 | 1 | 2;
  opt?: string;
}

// Distances from (0,0): apple 0 km, banana 111, cherry 222, date 556, Elder ~1568, fig.ex ~3112.
const ITEMS: ItemSpec[] = [
  { name: 'apple', n: 1, grp: 'a', tags: ['red', 'fruit'], when: '2020-01-01T00:00:00.000Z', loc: [0, 0], owner: 0, opt: 'x' },
  { name: 'banana', n: 2, grp: 'b', tags: ['yellow', 'fruit'], when: '2020-06-01T00:00:00.000Z', loc: [0, 1], owner: 1 },
  { name: 'cherry', n: 3, grp: 'a', tags: ['red', 'fruit', 'small'], when: '2021-01-01T00:00:00.000Z', loc: [0, 2], owner: 0 },
  { name: 'date', n: 4, grp: 'b', tags: [], when: '2021-06-01T00:00:00.000Z', loc: [0, 5], owner: 2, opt: 'y' },
  { name: 'Elder', n: 5, grp: 'a', tags: ['tree'], when: '2022-01-01T00:00:00.000Z', loc: [10, 10], owner: 1 },
  { name: 'fig.ex', n: 6, grp: 'b', tags: ['purple', 'fruit'], when: '2022-06-01T00:00:00.000Z', loc: [-20, -20], owner: 2 },
];

const STRINGS = ['Hello World', 'hello there', 'say hello', 'a.b*c', 'aXbbbc', 'line1\nHello', 'back\\Eslash'];

/** The SDK's request parameters of a query (what it sends as the URL query or batch params). */
function paramsOf(q: AV.Query<AV.Object>): unknown {
  return (q as unknown as { _getParams(): unknown })._getParams();
}

forEachEngineWithSdk('e2e queries', (h) => {
  let people: AV.Object[] = [];
  let items: AV.Object[] = [];

  before(async () => {
    people = [];
    items = [];
    for (const [name, age, fav] of [['Ann', 30, 'banana'], ['Bob', 40, 'date'], ['Cid', 50, 'fig.ex']] as const) {
      people.push(await saved('Person', { name, age, fav }));
    }
    // One by one, so createdAt follows the list.
    for (const it of ITEMS) {
      const attrs: Record<string, unknown> = {
        name: it.name,
        n: it.n,
        grp: it.grp,
        tags: it.tags,
        when: new Date(it.when),
        loc: new AV.GeoPoint(it.loc[0], it.loc[1]),
        owner: people[it.owner],
      };
      if (it.opt !== undefined) attrs.opt = it.opt;
      items.push(await saved('Item', attrs));
    }
    for (const [k, s] of STRINGS.entries()) await saved('Str', { k, s });
    const ann = people[0];
    ann.relation<AV.Object>('likes').add(items[0]);
    ann.relation<AV.Object>('likes').add(items[3]);
    await ann.save();
    const bob = people[1];
    bob.relation<AV.Object>('likes').add(items[0]);
    await bob.save();
  });

  const q = () => new AV.Query<AV.Object>('Item').ascending('n');
  const names = async (query: AV.Query<AV.Object>) => pluck(await query.find(), 'name');
  const strs = async (query: AV.Query<AV.Object>) => pluck(await query.ascending('k').find(), 's');

  test('equalTo / notEqualTo', async () => {
    assert.deepEqual(await names(q().equalTo('name', 'apple')), ['apple']);
    assert.deepEqual(await names(q().equalTo('n', 4)), ['date']);
    assert.deepEqual(await names(q().equalTo('name', 'nope')), []);
    assert.deepEqual(await names(q().notEqualTo('name', 'apple')), ['banana', 'cherry', 'date', 'Elder', 'fig.ex']);
    assert.deepEqual(await names(q().notEqualTo('opt', 'x')), ['banana', 'cherry', 'date', 'Elder', 'fig.ex']);
  });

  test('lessThan, lessThanOrEqualTo, greaterThan, greaterThanOrEqualTo', async () => {
    assert.deepEqual(await names(q().lessThan('n', 3)), ['apple', 'banana']);
    assert.deepEqual(await names(q().lessThanOrEqualTo('n', 3)), ['apple', 'banana', 'cherry']);
    assert.deepEqual(await names(q().greaterThan('n', 4)), ['Elder', 'fig.ex']);
    assert.deepEqual(await names(q().greaterThanOrEqualTo('n', 4)), ['date', 'Elder', 'fig.ex']);
    assert.deepEqual(await names(q().greaterThan('n', 1).lessThan('n', 4)), ['banana', 'cherry']);
    // Strings compare byte-wise ('E' < 'a').
    assert.deepEqual(await names(q().lessThan('name', 'b')), ['apple', 'Elder']);
    assert.deepEqual(await names(q().greaterThanOrEqualTo('name', 'date')), ['date', 'fig.ex']);
  });

  test('containedIn / notContainedIn', async () => {
    assert.deepEqual(await names(q().containedIn('name', ['apple', 'date', 'zzz'])), ['apple', 'date']);
    assert.deepEqual(await names(q().containedIn('n', [2, 6])), ['banana', 'fig.ex']);
    assert.deepEqual(await names(q().notContainedIn('name', ['apple', 'date'])), ['banana', 'cherry', 'Elder', 'fig.ex']);
    // On an array field $in matches when any element is in the list.
    assert.deepEqual(await names(q().containedIn('tags', ['tree', 'small'])), ['cherry', 'Elder']);
  });

  test('array fields: equalTo (contains), containsAll, sizeEqualTo', async () => {
    assert.deepEqual(await names(q().equalTo('tags', 'red')), ['apple', 'cherry']);
    assert.deepEqual(await names(q().equalTo('tags', 'fruit')), ['apple', 'banana', 'cherry', 'fig.ex']);
    assert.deepEqual(await names(q().containsAll('tags', ['red', 'fruit'])), ['apple', 'cherry']);
    assert.deepEqual(await names(q().containsAll('tags', ['red', 'small'])), ['cherry']);
    assert.deepEqual(await names(q().sizeEqualTo('tags', 0)), ['date']);
    assert.deepEqual(await names(q().sizeEqualTo('tags', 2)), ['apple', 'banana', 'fig.ex']);
    assert.deepEqual(await names(q().sizeEqualTo('tags', 3)), ['cherry']);
  });

  test('exists / doesNotExist', async () => {
    assert.deepEqual(await names(q().exists('opt')), ['apple', 'date']);
    assert.deepEqual(await names(q().doesNotExist('opt')), ['banana', 'cherry', 'Elder', 'fig.ex']);
    assert.deepEqual(await names(q().exists('nowhere')), []);
  });

  test('matches with a RegExp and its flags (i, m) and with x and s modifiers', async () => {
    const sq = () => new AV.Query<AV.Object>('Str');
    assert.deepEqual(await strs(sq().matches('s', /^a.b/)), ['a.b*c', 'aXbbbc']);
    assert.deepEqual(await strs(sq().matches('s', /a.b*c/)), ['aXbbbc']);
    assert.deepEqual(await strs(sq().matches('s', /^hello/i)), ['Hello World', 'hello there']);
    assert.deepEqual(await strs(sq().matches('s', /^Hello/)), ['Hello World']);
    assert.deepEqual(await strs(sq().matches('s', /^Hello/m)), ['Hello World', 'line1\nHello']);
    assert.deepEqual(await strs(sq().matches('s', /World$/)), ['Hello World']);
    // x: free spacing, '# ...' is a comment, an escaped space is literal.
    assert.deepEqual(await strs(sq().matches('s', new RegExp('^say\\ hello # a comment'), 'x')), ['say hello']);
    // s: '.' also matches a newline; without it, it does not.
    assert.deepEqual(await strs(sq().matches('s', /line1.Hello/)), []);
    assert.deepEqual(await strs(sq().matches('s', /line1.Hello/, 's')), ['line1\nHello']);
    assert.deepEqual(await names(q().matches('name', /^[a-c]/)), ['apple', 'banana', 'cherry']);
  });

  test('startsWith, endsWith, contains send \\Q..\\E and match literally', async () => {
    const sq = () => new AV.Query<AV.Object>('Str');
    assert.deepEqual(await strs(sq().startsWith('s', 'Hello')), ['Hello World']);
    assert.deepEqual(await strs(sq().startsWith('s', 'hello')), ['hello there']);
    assert.deepEqual(await strs(sq().endsWith('s', 'hello')), ['say hello']);
    assert.deepEqual(await strs(sq().contains('s', 'ello')), ['Hello World', 'hello there', 'say hello', 'line1\nHello']);
    // Regex metacharacters are literal: 'a.b*c' must not match 'aXbbbc'.
    assert.deepEqual(await strs(sq().contains('s', 'a.b*c')), ['a.b*c']);
    assert.deepEqual(await strs(sq().startsWith('s', 'a.')), ['a.b*c']);
    assert.deepEqual(await names(q().endsWith('name', '.ex')), ['fig.ex']);
    // A literal \E inside the text (the SDK splits the quote around it).
    assert.deepEqual(await strs(sq().contains('s', 'k\\Es')), ['back\\Eslash']);
  });

  test('matchesQuery / doesNotMatchQuery ($inQuery / $notInQuery)', async () => {
    const older = new AV.Query<AV.Object>('Person').greaterThan('age', 35);
    assert.deepEqual(await names(q().matchesQuery('owner', older)), ['banana', 'date', 'Elder', 'fig.ex']);
    assert.deepEqual(await names(q().doesNotMatchQuery('owner', new AV.Query<AV.Object>('Person').greaterThan('age', 35))), ['apple', 'cherry']);
    assert.deepEqual(await names(q().matchesQuery('owner', new AV.Query<AV.Object>('Person').equalTo('name', 'Cid'))), ['date', 'fig.ex']);
  });

  test('matchesKeyInQuery / doesNotMatchKeyInQuery ($select / $dontSelect)', async () => {
    const young = () => new AV.Query<AV.Object>('Person').lessThan('age', 45);
    assert.deepEqual(await names(q().matchesKeyInQuery('name', 'fav', young())), ['banana', 'date']);
    assert.deepEqual(await names(q().doesNotMatchKeyInQuery('name', 'fav', young())), ['apple', 'cherry', 'Elder', 'fig.ex']);
  });

  test('near orders by distance; an explicit order wins', async () => {
    const origin = new AV.GeoPoint(0, 0);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').near('loc', origin)), ['apple', 'banana', 'cherry', 'date', 'Elder', 'fig.ex']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').near('loc', new AV.GeoPoint(10, 10)).limit(2)), ['Elder', 'date']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').near('loc', origin).descending('n').limit(2)), ['fig.ex', 'Elder']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').near('loc', origin).equalTo('grp', 'b')), ['banana', 'date', 'fig.ex']);
  });

  test('withinKilometers, withinMiles, withinRadians', async () => {
    const origin = new AV.GeoPoint(0, 0);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').withinKilometers('loc', origin, 200)), ['apple', 'banana']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').withinMiles('loc', origin, 150)), ['apple', 'banana', 'cherry']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').withinRadians('loc', origin, 0.1)), ['apple', 'banana', 'cherry', 'date']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').withinKilometers('loc', new AV.GeoPoint(0, 5), 10)), ['date']);
  });

  test('withinGeoBox', async () => {
    const box = () => new AV.Query<AV.Object>('Item').ascending('n');
    assert.deepEqual(await names(box().withinGeoBox('loc', new AV.GeoPoint(-1, -1), new AV.GeoPoint(1, 3))), ['apple', 'banana', 'cherry']);
    assert.deepEqual(await names(box().withinGeoBox('loc', new AV.GeoPoint(-30, -30), new AV.GeoPoint(-10, -10))), ['fig.ex']);
  });

  test('ascending, descending, addAscending, addDescending', async () => {
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').ascending('name')), ['Elder', 'apple', 'banana', 'cherry', 'date', 'fig.ex']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').descending('n')), ['fig.ex', 'Elder', 'date', 'cherry', 'banana', 'apple']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').ascending('grp').addDescending('n')), ['Elder', 'cherry', 'apple', 'fig.ex', 'date', 'banana']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').descending('grp').addAscending('n')), ['banana', 'date', 'fig.ex', 'apple', 'cherry', 'Elder']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').descending('when')), ['fig.ex', 'Elder', 'date', 'cherry', 'banana', 'apple']);
    assert.deepEqual(await names(new AV.Query<AV.Object>('Item').addAscending('n')), ['apple', 'banana', 'cherry', 'date', 'Elder', 'fig.ex']);
  });

  test('limit and skip', async () => {
    assert.deepEqual(await names(q().limit(2)), ['apple', 'banana']);
    assert.deepEqual(await names(q().skip(1).limit(2)), ['banana', 'cherry']);
    assert.deepEqual(await names(q().skip(4)), ['Elder', 'fig.ex']);
    assert.deepEqual(await names(q().skip(10)), []);
  });

  test('select returns only the chosen keys (plus objectId and dates)', async () => {
    const [first] = await q().select('name', 'grp').limit(1).find();
    assert.equal(first.get('name'), 'apple');
    assert.equal(first.get('grp'), 'a');
    assert.equal(first.has('n'), false);
    assert.equal(first.has('tags'), false);
    assert.equal(first.id, items[0].id);
    assert.ok(first.createdAt instanceof Date);
    const got = await new AV.Query<AV.Object>('Item').select('n').get(items[1].id!);
    assert.deepEqual([got.get('n'), got.has('name')], [2, false]);
  });

  test('include resolves pointers in query results', async () => {
    const res = await q().include('owner').find();
    assert.deepEqual(res.map((o) => (o.get('owner') as AV.Object).get('name')), ['Ann', 'Bob', 'Ann', 'Cid', 'Bob', 'Cid']);
    const bare = await q().limit(1).find();
    assert.equal((bare[0].get('owner') as AV.Object).get('name'), undefined);
    assert.equal((bare[0].get('owner') as AV.Object).id, people[0].id);
  });

  test('count, findAndCount, first, get', async () => {
    assert.equal(await new AV.Query<AV.Object>('Item').count(), 6);
    assert.equal(await new AV.Query<AV.Object>('Item').equalTo('grp', 'a').count(), 3);
    assert.equal(await new AV.Query<AV.Object>('Item').equalTo('grp', 'zzz').count(), 0);
    const [page, total] = await q().limit(2).findAndCount();
    assert.deepEqual(pluck(page, 'name'), ['apple', 'banana']);
    assert.equal(total, 6);
    assert.equal((await q().first())?.get('name'), 'apple');
    assert.equal((await new AV.Query<AV.Object>('Item').descending('n').first())?.get('name'), 'fig.ex');
    assert.equal(await new AV.Query<AV.Object>('Item').equalTo('name', 'nope').first(), undefined);
    assert.equal((await new AV.Query<AV.Object>('Item').get(items[2].id!)).get('name'), 'cherry');
  });

  test('AV.Query.or and AV.Query.and, also nested', async () => {
    const or = AV.Query.or(new AV.Query<AV.Object>('Item').equalTo('name', 'apple'), new AV.Query<AV.Object>('Item').greaterThanOrEqualTo('n', 5));
    assert.deepEqual(await names(or.ascending('n')), ['apple', 'Elder', 'fig.ex']);
    const and = AV.Query.and(new AV.Query<AV.Object>('Item').equalTo('tags', 'fruit'), new AV.Query<AV.Object>('Item').greaterThan('n', 2));
    assert.deepEqual(await names(and.ascending('n')), ['cherry', 'fig.ex']);
    const nested = AV.Query.and(
      AV.Query.or(new AV.Query<AV.Object>('Item').equalTo('grp', 'a'), new AV.Query<AV.Object>('Item').equalTo('name', 'date')),
      AV.Query.or(new AV.Query<AV.Object>('Item').lessThan('n', 2), new AV.Query<AV.Object>('Item').greaterThan('n', 3)),
    );
    assert.deepEqual(await names(nested.ascending('n')), ['apple', 'date', 'Elder']);
    // A compound query combined with another condition on the outer query.
    assert.deepEqual(await names(or.equalTo('grp', 'b').ascending('n')), ['fig.ex']);
    assert.equal(await AV.Query.or(new AV.Query<AV.Object>('Item').equalTo('n', 1), new AV.Query<AV.Object>('Item').equalTo('n', 2)).count(), 2);
  });

  test('find on a relation query ($relatedTo) and the reverse query', async () => {
    const liked = await people[0].relation<AV.Object>('likes').query().ascending('n').find();
    assert.deepEqual(pluck(liked, 'name'), ['apple', 'date']);
    assert.deepEqual(pluck(await people[1].relation<AV.Object>('likes').query().find(), 'name'), ['apple']);
    assert.deepEqual(pluck(await people[2].relation<AV.Object>('likes').query().find(), 'name'), []);
    // Relation query composed with other constraints.
    assert.deepEqual(pluck(await people[0].relation<AV.Object>('likes').query().greaterThan('n', 1).find(), 'name'), ['date']);
    // Reverse: which people like apple (equality on a relation field).
    const likers = await AV.Relation.reverseQuery<AV.Object>('Person', 'likes', items[0]).find();
    assert.deepEqual(pluck(likers, 'name').sort(), ['Ann', 'Bob']);
  });

  test('pointer fields: equalTo, notEqualTo, containedIn with pointers', async () => {
    const [ann, bob, cid] = people;
    assert.deepEqual(await names(q().equalTo('owner', bob)), ['banana', 'Elder']);
    assert.deepEqual(await names(q().notEqualTo('owner', ann)), ['banana', 'date', 'Elder', 'fig.ex']);
    assert.deepEqual(await names(q().containedIn('owner', [ann, cid])), ['apple', 'cherry', 'date', 'fig.ex']);
    assert.deepEqual(await names(q().notContainedIn('owner', [ann, cid])), ['banana', 'Elder']);
  });

  test('date comparisons on a Date field and on createdAt', async () => {
    const cut = new Date('2021-01-01T00:00:00.000Z');
    assert.deepEqual(await names(q().lessThan('when', cut)), ['apple', 'banana']);
    assert.deepEqual(await names(q().lessThanOrEqualTo('when', cut)), ['apple', 'banana', 'cherry']);
    assert.deepEqual(await names(q().greaterThan('when', cut)), ['date', 'Elder', 'fig.ex']);
    assert.deepEqual(await names(q().equalTo('when', new Date('2021-06-01T00:00:00.000Z'))), ['date']);

    // createdAt: compare with what the server returned for each item.
    const t = items[2].createdAt!;
    const expectAfter = items.filter((o) => o.createdAt!.getTime() > t.getTime()).map((o) => o.get('name'));
    const expectUpTo = items.filter((o) => o.createdAt!.getTime() <= t.getTime()).map((o) => o.get('name'));
    assert.ok(expectAfter.length + expectUpTo.length === 6 && expectUpTo.includes('cherry'));
    assert.deepEqual(await names(q().greaterThan('createdAt', t)), expectAfter);
    assert.deepEqual(await names(q().lessThanOrEqualTo('createdAt', t)), expectUpTo);
    assert.deepEqual(await names(q().greaterThanOrEqualTo('createdAt', items[0].createdAt!)), ITEMS.map((i) => i.name));
    assert.deepEqual(await names(q().lessThan('createdAt', items[0].createdAt!)), []);
    assert.deepEqual(await names(q().greaterThan('updatedAt', new Date(Date.now() + 60_000))), []);
  });

  test('scan with the master key pages through everything', async () => {
    const all: AV.Object[] = [];
    const it = new AV.Query<AV.Object>('Item').scan({ batchSize: 2 }, { useMasterKey: true });
    for (let r = await it.next(); !r.done; r = await it.next()) all.push(r.value);
    assert.equal(all.length, 6);
    const ids = all.map((o) => o.id!);
    assert.deepEqual(ids, [...ids].sort(), 'default scan order is objectId ascending');
    assert.deepEqual(pluck(all, 'name').sort(), ITEMS.map((i) => i.name).sort());

    const some: AV.Object[] = [];
    const filtered = new AV.Query<AV.Object>('Item').equalTo('grp', 'a').scan({ batchSize: 1 }, { useMasterKey: true });
    for (let r = await filtered.next(); !r.done; r = await filtered.next()) some.push(r.value);
    assert.deepEqual(pluck(some, 'name').sort(), ['Elder', 'apple', 'cherry']);

    const desc: AV.Object[] = [];
    const byN = new AV.Query<AV.Object>('Item').scan({ orderedBy: '-n', batchSize: 4 }, { useMasterKey: true });
    for (let r = await byN.next(); !r.done; r = await byN.next()) desc.push(r.value);
    assert.deepEqual(pluck(desc, 'n'), [6, 5, 4, 3, 2, 1]);
  });

  test('scan without the master key is refused', async () => {
    await rejectsWithCode(new AV.Query<AV.Object>('Item').scan({ batchSize: 2 }).next(), 1);
  });

  test('each iterates over every match', async () => {
    const seen: string[] = [];
    await new AV.Query<AV.Object>('Item').equalTo('tags', 'fruit').each((o: AV.Object) => {
      seen.push(o.get('name'));
    }, { batchSize: 2 } as AV.AuthOptions);
    assert.deepEqual(seen.sort(), ['apple', 'banana', 'cherry', 'fig.ex']);
  });

  test('a query too long for a URL goes through a batch GET and still answers', async () => {
    const filler = Array.from({ length: 40 }, (_, i) => `not-a-fruit-${i}-${'x'.repeat(60)}`);
    const long = () => q().containedIn('name', [...filler, 'apple', 'Elder']);
    // Precondition: the SDK switches to POST /1.1/batch above 2000 encoded characters.
    assert.ok(encodeURIComponent(JSON.stringify(paramsOf(long()))).length > 2000);
    // Watch the socket: the SDK must really have sent POST /1.1/batch.
    const seen: string[] = [];
    const watch = (req: { method?: string; url?: string }) => seen.push(`${req.method} ${req.url}`);
    h().server.server.on('request', watch);
    try {
      assert.deepEqual(await names(long()), ['apple', 'Elder']);
    } finally {
      h().server.server.off('request', watch);
    }
    assert.deepEqual(seen, ['POST /1.1/batch']);
    assert.equal(await long().count(), 2);
    assert.equal((await long().first())?.get('name'), 'apple');
    const [page, total] = await long().limit(1).findAndCount();
    assert.deepEqual([pluck(page, 'name'), total], [['apple'], 2]);
  });
});
