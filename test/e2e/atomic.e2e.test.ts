// Atomic field operations through the official JS SDK: increment (also under concurrency), array
// add/addUnique/remove, bit operations, unset and dot-notation sets into nested objects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AV, forEachEngineWithSdk, saved } from './sdk.ts';

/** Reads an object back from the server (a fresh instance, no SDK-side estimate). */
async function reload(obj: AV.Object): Promise<AV.Object> {
  const fresh = AV.Object.createWithoutData(obj.className, obj.id!);
  await fresh.fetch();
  return fresh;
}

forEachEngineWithSdk('e2e atomic operations', (h) => {
  test('increment and decrement (negative increment), also on a missing field', async () => {
    const obj = await saved('Score', { n: 10 });
    obj.increment('n', 5);
    await obj.save();
    assert.equal((await reload(obj)).get('n'), 15);
    obj.increment('n', -20);
    await obj.save();
    assert.equal((await reload(obj)).get('n'), -5);
    obj.increment('n');
    obj.increment('fresh', 2.5);
    await obj.save();
    const got = await reload(obj);
    assert.equal(got.get('n'), -4);
    assert.equal(got.get('fresh'), 2.5);

    // Increment in the create request itself.
    const created = new AV.Object('Score');
    created.increment('n', 3);
    await created.save();
    assert.equal((await reload(created)).get('n'), 3);
  });

  test('50 concurrent increments through the SDK lose nothing', async () => {
    const obj = await saved('Hot', { n: 0 });
    // One SDK object per request: the SDK serialises saves of one instance.
    await Promise.all(
      Array.from({ length: 50 }, () => {
        const o = AV.Object.createWithoutData('Hot', obj.id!);
        o.increment('n', 1);
        return o.save();
      }),
    );
    assert.equal((await reload(obj)).get('n'), 50);
  });

  test('add appends (duplicates kept), addUnique skips existing, remove drops every occurrence', async () => {
    const obj = await saved('Tags', { tags: ['a', 'b'] });
    obj.add('tags', 'b');
    await obj.save();
    assert.deepEqual((await reload(obj)).get('tags'), ['a', 'b', 'b']);

    obj.add('tags', ['c', 'a']);
    await obj.save();
    assert.deepEqual((await reload(obj)).get('tags'), ['a', 'b', 'b', 'c', 'a']);

    obj.addUnique('tags', ['a', 'd', 'd']);
    await obj.save();
    const unique = (await reload(obj)).get('tags') as string[];
    assert.deepEqual(unique.slice(0, 5), ['a', 'b', 'b', 'c', 'a']);
    assert.deepEqual(unique.slice(5), ['d']);

    obj.remove('tags', ['a', 'b']);
    await obj.save();
    assert.deepEqual((await reload(obj)).get('tags'), ['c', 'd']);

    // Array ops on a missing field start from an empty array; objects compare by value.
    const o2 = await saved('Tags', {});
    o2.add('list', { k: 1 });
    await o2.save();
    o2.addUnique('list', [{ k: 1 }, { k: 2 }]);
    await o2.save();
    assert.deepEqual((await reload(o2)).get('list'), [{ k: 1 }, { k: 2 }]);
    o2.remove('list', { k: 1 });
    await o2.save();
    assert.deepEqual((await reload(o2)).get('list'), [{ k: 2 }]);
  });

  test('array ops with pointers', async () => {
    const [p1, p2] = await Promise.all([saved('Member', { name: 'p1' }), saved('Member', { name: 'p2' })]);
    const team = await saved('Team', { members: [p1] });
    team.addUnique('members', [p1, p2]);
    await team.save();
    const got = await reload(team);
    assert.deepEqual((got.get('members') as AV.Object[]).map((m) => m.id), [p1.id, p2.id]);
    team.remove('members', p1);
    await team.save();
    assert.deepEqual(((await reload(team)).get('members') as AV.Object[]).map((m) => m.id), [p2.id]);
  });

  test('bitAnd, bitOr, bitXor', async () => {
    const obj = await saved('Bits', { flags: 0b1100 });
    obj.bitAnd('flags', 0b1010);
    await obj.save();
    assert.equal((await reload(obj)).get('flags'), 0b1000);
    obj.bitOr('flags', 0b0011);
    await obj.save();
    assert.equal((await reload(obj)).get('flags'), 0b1011);
    obj.bitXor('flags', 0b0110);
    await obj.save();
    assert.equal((await reload(obj)).get('flags'), 0b1101);

    // On a missing field the value starts at 0.
    const fresh = new AV.Object('Bits');
    fresh.bitAnd('a', 1);
    fresh.bitOr('b', 1);
    fresh.bitXor('c', 1);
    await fresh.save();
    const got = await reload(fresh);
    assert.deepEqual([got.get('a'), got.get('b'), got.get('c')], [0, 1, 1]);
  });

  test('unset removes the field', async () => {
    const obj = await saved('Unset', { keep: 1, drop: 'x', nested: { a: 1 } });
    obj.unset('drop');
    await obj.save();
    const got = await reload(obj);
    assert.equal(got.has('drop'), false);
    assert.equal(got.get('keep'), 1);
    const raw = await h().client.get(`/1.1/classes/Unset/${obj.id}`);
    assert.equal('drop' in raw.body, false);
    assert.deepEqual(raw.body.nested, { a: 1 });
    // The field is really gone for queries too.
    assert.equal(await new AV.Query<AV.Object>('Unset').exists('drop').count(), 0);
    assert.equal(await new AV.Query<AV.Object>('Unset').doesNotExist('drop').count(), 1);
  });

  test('dot notation sets, increments and unsets inside an object field', async () => {
    const obj = await saved('Profile', { info: { name: 'Ann', stats: { visits: 1 } } });
    const u = AV.Object.createWithoutData('Profile', obj.id!);
    u.set('info.city', 'Paris');
    u.increment('info.stats.visits', 2);
    u.set('info.name', 'Anne');
    await u.save();
    assert.deepEqual((await reload(obj)).get('info'), { name: 'Anne', city: 'Paris', stats: { visits: 3 } });

    const v = AV.Object.createWithoutData('Profile', obj.id!);
    v.unset('info.city');
    v.add('info.tags', 'x');
    v.set('fresh.deep', true);
    await v.save();
    const got = await reload(obj);
    assert.deepEqual(got.get('info'), { name: 'Anne', stats: { visits: 3 }, tags: ['x'] });
    assert.deepEqual(got.get('fresh'), { deep: true });

    // Dotted keys query into the nested object.
    assert.equal(await new AV.Query<AV.Object>('Profile').equalTo('info.stats.visits', 3).count(), 1);
    assert.equal(await new AV.Query<AV.Object>('Profile').equalTo('info.stats.visits', 1).count(), 0);
  });
});
