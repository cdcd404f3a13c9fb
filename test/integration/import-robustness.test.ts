/**
 * `larder import` on bad and broken inputs, and the writer's idempotency: malformed records are
 * reported with file and line while the rest is imported; a truncated archive or file keeps
 * what was read; an import run twice, or again after it broke off halfway, ends with the same
 * data and no duplicates. Also the writer contract that `larder sync` relies on.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeObjects } from '../../src/migration/write-objects.ts';
import { forEachEngine } from './harness/engines.ts';
import { dumpClasses, FIXTURES, folderOf, importInto, tarGz, tempDir } from './harness/import-helpers.ts';

const HEADER = (c: string): string => `#filetype:JSON-streaming {"type":"Class","class":"${c}"}\n`;

/** `n` records of class-like content that gzip cannot shrink much (so cuts land predictably). */
function records(prefix: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    const id = `${prefix}${String(i).padStart(6, '0')}`;
    out += JSON.stringify({ objectId: id, createdAt: '2022-01-01T00:00:00.000Z', updatedAt: '2022-01-02T00:00:00.000Z', n: i, noise: randomBytes(24).toString('hex'), ACL: { '*': { read: true } } }) + '\n';
  }
  return out;
}

async function count(h: ReturnType<Parameters<Parameters<typeof forEachEngine>[1]>[0]>, className: string): Promise<number> {
  const res = await h.client.get(`/1.1/classes/${className}`, { count: 1, limit: 0 }, { master: true });
  return res.body.count;
}

forEachEngine('import: malformed, truncated and repeated inputs', (h) => {
  test('malformed records are reported with file and line; the rest is imported', async () => {
    const lines = [
      HEADER('Item').trimEnd(),
      '{"objectId":"i1","n":1}',
      '{"objectId":"i2","n":2',
      '{"objectId":"bad id","n":3}',
      '{"objectId":"i4","n":"four"}',
      '{"objectId":"i5","ACL":{"*":{"read":"yes"}}}',
      '# a comment',
      '',
      '{"objectId":"i6","n":6,"createdAt":"not a date"}',
      '[1,2]',
      '{"objectId":"i7","n":7,"$bad":1}',
      '{"n":8}',
      '{"objectId":"i9","n":9}',
    ];
    const dir = folderOf({
      'Item.0.jsonl': lines.join('\n') + '\n',
      '_Join:owners:Item.0.jsonl': '{"owningId":"i1","relatedId":"u1"}\n{"owningId":"i1"}\nnot json\n',
      'notes.txt': 'not part of an export',
      '_Larder.0.jsonl': '{"objectId":"x1"}\n',
    });
    const { result, errors } = await importInto(h(), dir);
    // Record errors of one file come in line order; other files' errors may interleave (batches
    // are written while the next file is read).
    const item = errors.filter((e) => e.startsWith('Item.0.jsonl:'));
    assert.deepEqual(item.map((e) => e.split(': ')[0]), [3, 4, 5, 6, 9, 10, 11, 12].map((n) => `Item.0.jsonl:${n}`));
    assert.match(item[0], /bad JSON/);
    assert.match(item[1], /bad objectId/);
    assert.match(item[2], /Field 'n' has type Number, but String was given/);
    assert.match(item[3], /ACL/);
    assert.match(item[4], /createdAt is not a date/);
    assert.match(item[5], /must be a JSON object/);
    assert.match(item[6], /\$bad/);
    assert.match(item[7], /bad objectId null/);
    const others = errors.filter((e) => !e.startsWith('Item.0.jsonl:')).sort();
    assert.equal(others.length, 2);
    assert.match(others[0], /^_Join:owners:Item\.0\.jsonl: relation file skipped: the class of relatedId is unknown/);
    assert.match(others[1], /^_Larder\.0\.jsonl: '_Larder' is not a class name Larder accepts/);
    assert.equal(result.failures, 10);
    assert.deepEqual(result.ignored, ['notes.txt']);
    const s = result.classes.get('Item');
    assert.deepEqual([s?.read, s?.inserted, s?.skipped], [10, 2, 8]);
    const ids = (await h().client.get('/1.1/classes/Item', { order: 'objectId' }, { master: true })).body.results.map((o: { objectId: string }) => o.objectId);
    assert.deepEqual(ids, ['i1', 'i9']);
  });

  test('bad relation rows are reported by line; the good ones are applied', async () => {
    const dir = folderOf({
      'Team.0.jsonl': '{"objectId":"t1","members":{"__type":"Relation","className":"Player"}}\n',
      'Player.0.jsonl': '{"objectId":"p1"}\n{"objectId":"p2"}\n',
      '_Join:members:Team.0.jsonl': '{"owningId":"t1","relatedId":"p1"}\n{"owningId":"t1"}\n{"owningId":"t1","relatedId":"p2"}\n',
    });
    const { result, errors } = await importInto(h(), dir);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /^_Join:members:Team\.0\.jsonl:2: a relation row must be/);
    assert.deepEqual(result.relations.get('Team.members'), { targetClass: 'Player', read: 3, added: 2, skipped: 1, files: ['_Join:members:Team.0.jsonl'] });
  });

  test('a user whose unique username is taken is skipped; the rest of its batch is written', async () => {
    const users = [
      { objectId: 'ua1', username: 'same-name' },
      { objectId: 'ua2', username: 'other-1' },
      { objectId: 'ua3', username: 'same-name' },
      { objectId: 'ua4', username: 'other-2', authData: { weixin: { openid: 'wx-shared' } } },
      { objectId: 'ua5', username: 'other-3', authData: { weixin: { openid: 'wx-shared' } } },
    ];
    const dir = folderOf({ '_User.0.jsonl': users.map((u) => JSON.stringify(u)).join('\n') });
    const { result, errors } = await importInto(h(), dir);
    assert.deepEqual([result.classes.get('_User')?.inserted, result.classes.get('_User')?.skipped], [3, 2]);
    assert.equal(errors.length, 2);
    assert.match(errors[0], /^_User\.0\.jsonl:3: Username has already been taken/);
    assert.match(errors[1], /^_User\.0\.jsonl:5: .*authData\.weixin.*(already linked|also claimed)/);
  });

  test('importing twice changes nothing and duplicates nothing', async () => {
    const before = await importInto(h(), join(FIXTURES, 'jsonl'));
    assert.equal(before.result.failures, 0);
    const first = await dumpClasses(h(), ['_User', '_Role', '_File', 'Post', 'Comment']);
    const again = await importInto(h(), join(FIXTURES, 'jsonl'));
    for (const [c, s] of again.result.classes) assert.deepEqual([s.inserted, s.updated, s.unchanged, s.skipped], [0, 0, s.read, 0], c);
    for (const [k, s] of again.result.relations) assert.equal(s.added, 0, k);
    assert.deepEqual(await dumpClasses(h(), ['_User', '_Role', '_File', 'Post', 'Comment']), first);
  });

  test('a truncated archive keeps what was read; a re-run after it completes the import', async () => {
    const full = await tarGz({ 'Alpha.0.jsonl': HEADER('Alpha') + records('a', 1500), 'Beta.0.jsonl': HEADER('Beta') + records('b', 1500) });
    const dir = tempDir();
    const cut = join(dir, 'cut.tar.gz');
    writeFileSync(cut, full.subarray(0, Math.floor(full.length * 0.75)));
    const partial = await importInto(h(), cut, { batchSize: 200 });
    assert.match(partial.result.broken ?? '', /Beta\.0\.jsonl/);
    assert.equal(partial.result.classes.get('Alpha')?.inserted, 1500);
    const betaDone = partial.result.classes.get('Beta')?.inserted ?? 0;
    assert.ok(betaDone > 0 && betaDone < 1500, `Beta partly imported: ${betaDone}`);
    assert.equal(await count(h(), 'Beta'), betaDone);

    const whole = join(dir, 'whole.tar.gz');
    writeFileSync(whole, full);
    const rerun = await importInto(h(), whole, { batchSize: 200 });
    assert.equal(rerun.result.broken, undefined);
    assert.equal(rerun.result.failures, 0);
    const beta = rerun.result.classes.get('Beta');
    assert.deepEqual([beta?.inserted, beta?.unchanged], [1500 - betaDone, betaDone]);
    assert.equal(rerun.result.classes.get('Alpha')?.unchanged, 1500);
    assert.equal(await count(h(), 'Alpha'), 1500);
    assert.equal(await count(h(), 'Beta'), 1500);
  });

  test('a JSONL file cut in the middle of a line: that line is reported, the others imported', async () => {
    const text = HEADER('Gamma') + records('g', 10);
    const dir = folderOf({ 'Gamma.0.jsonl': text.slice(0, text.length - 40) });
    const { result, errors } = await importInto(h(), dir);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /^Gamma\.0\.jsonl:11: bad JSON/);
    assert.equal(result.classes.get('Gamma')?.inserted, 9);
  });

  test('a corrupt (not gzip) archive is a clear error, not a crash', async () => {
    const dir = tempDir();
    const bad = join(dir, 'export.tar.gz');
    writeFileSync(bad, 'this is not a gzip file at all');
    const { result } = await importInto(h(), bad);
    assert.match(result.broken ?? '', /export\.tar\.gz.*(header|gzip|incorrect)/i);
  });
});

forEachEngine('import: the shared writer (contract used by larder sync)', (h) => {
  const target = () => ({ db: h().db, classes: h().app.classes });

  test('newer updatedAt replaces, older is ignored, equal data is unchanged', async () => {
    const base = { objectId: 'w1', createdAt: '2022-01-01T00:00:00.000Z', updatedAt: '2022-01-02T00:00:00.000Z', v: 1 };
    assert.equal((await writeObjects(target(), 'Writer', [base])).inserted, 1);
    assert.equal((await writeObjects(target(), 'Writer', [base])).unchanged, 1);
    const older = await writeObjects(target(), 'Writer', [{ ...base, updatedAt: '2022-01-01T12:00:00.000Z', v: 0 }]);
    assert.deepEqual([older.updated, older.unchanged], [0, 1]);
    const newer = await writeObjects(target(), 'Writer', [{ ...base, updatedAt: { __type: 'Date', iso: '2022-01-03T00:00:00.000Z' }, v: 2 }]);
    assert.equal(newer.updated, 1);
    const got = await h().client.get('/1.1/classes/Writer/w1', {}, { master: true });
    assert.deepEqual([got.body.v, got.body.updatedAt], [2, '2022-01-03T00:00:00.000Z']);
    // Two copies of one object in one call: the newer wins, the older is reported.
    const twice = await writeObjects(target(), 'Writer', [{ ...base, updatedAt: '2022-02-01T00:00:00.000Z', v: 3 }, { ...base, updatedAt: '2022-01-05T00:00:00.000Z', v: 9 }]);
    assert.equal(twice.updated, 1);
    assert.equal(twice.skipped[0].index, 1);
  });

  test('a _User written without hidden fields keeps its password, salt, session and authData', async () => {
    const user = {
      objectId: 'wu1', username: 'writer-user', createdAt: '2022-01-01T00:00:00.000Z', updatedAt: '2022-01-01T00:00:00.000Z',
      password: 'tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==',
      salt: 'h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2', sessionToken: 'writerusersessiontoken0001', authData: { qq: { openid: 'qq-wu1', access_token: 't' } },
    };
    assert.equal((await writeObjects(target(), '_User', [user])).inserted, 1);
    // What a REST read (and so sync) sees: no password, salt, sessionToken or authData.
    const { password: _p, salt: _s, sessionToken: _t, authData: _a, ...visible } = user;
    const out = await writeObjects(target(), '_User', [{ ...visible, updatedAt: '2022-06-01T00:00:00.000Z', nickname: 'W' }]);
    assert.equal(out.updated, 1);
    const login = await h().client.post('/1.1/login', { username: 'writer-user', password: 'password' });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.nickname, 'W');
    assert.equal((await h().client.get('/1.1/users/me', {}, { session: 'writerusersessiontoken0001' })).body.objectId, 'wu1');
    const qq = await h().client.post('/1.1/users', { authData: { qq: { openid: 'qq-wu1', access_token: 'x' } } });
    assert.equal(qq.body.objectId, 'wu1');
  });
});
