// The official JS SDK's AV.Query.doCloudQuery against Larder: objects, count, placeholders and
// the error code of a syntax error.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { AV, forEachEngineWithSdk, pluck, rejectsWithCode, saved } from './sdk.ts';

/** What doCloudQuery resolves with (the SDK's typings describe it wrongly as a Queriable). */
interface CloudQueryAnswer {
  results: AV.Object[];
  count?: number;
  className: string;
}

function cloudQuery(cql: string, pvalues?: unknown[]): Promise<CloudQueryAnswer> {
  const run = AV.Query.doCloudQuery as unknown as (cql: string, pvalues?: unknown[]) => Promise<CloudQueryAnswer>;
  return pvalues ? run(cql, pvalues) : run(cql);
}

forEachEngineWithSdk('e2e CQL (AV.Query.doCloudQuery)', () => {
  let post: AV.Object;

  before(async () => {
    post = await saved('CqlPost', { title: 'first' });
    for (const [name, score] of [['dennis', 90], ['catty', 70], ['green', 85]] as const) {
      await saved('CqlScore', { name, score, post });
    }
  });

  test('select returns AV.Objects of the class, in order', async () => {
    const res = await cloudQuery('select * from CqlScore where score > 80 order by score desc');
    assert.equal(res.className, 'CqlScore');
    assert.ok(res.results.every((o) => o instanceof AV.Object && o.className === 'CqlScore' && typeof o.id === 'string'));
    assert.deepEqual(pluck(res.results, 'name'), ['dennis', 'green']);
    assert.equal(res.count, undefined);
  });

  test('count with and without objects', async () => {
    const only = await cloudQuery('select count(*) from CqlScore where score >= 70');
    assert.equal(only.count, 3);
    assert.deepEqual(only.results, []);
    const both = await cloudQuery('select count(*), name from CqlScore where score < 80');
    assert.equal(both.count, 1);
    assert.deepEqual(pluck(both.results, 'name'), ['catty']);
    assert.equal(both.results[0].get('score'), undefined);
  });

  test('placeholders (pvalues), pointer values and include', async () => {
    const res = await cloudQuery('select include post, * from CqlScore where name = ? and score > ? limit ?', ['green', 50, 10]);
    assert.deepEqual(pluck(res.results, 'name'), ['green']);
    const included = res.results[0].get('post') as AV.Object;
    assert.equal(included.get('title'), 'first');
    const byPtr = await cloudQuery(`select count(*) from CqlScore where post = pointer('CqlPost', '${post.id}')`);
    assert.equal(byPtr.count, 3);
    const sub = await cloudQuery("select * from CqlScore where post in (select * from CqlPost where title = 'first') and name like 'd%'");
    assert.deepEqual(pluck(sub.results, 'name'), ['dennis']);
  });

  test('a syntax error rejects with code 300', async () => {
    const err = await rejectsWithCode(cloudQuery('select * from CqlScore where'), 300);
    assert.match(err.rawMessage ?? err.message, /position 29/);
  });
});
