// Data export (POST /1.1/exportData): permissions, validation, the job's life, and the archive
// itself, downloaded through the server, unpacked and compared with what the API returns.
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { workerOf } from '../../src/export/export-worker.ts';
import { archivePath } from '../../src/export/run-export-job.ts';
import { leancloudHash } from '../../src/users/password.ts';
import { ident, sql } from '../../src/sql/fragment.ts';
import { downloadArchive, exportAndWait, readJsonl, waitJob } from './harness/export-archive.ts';
import { forEachEngine, type Harness } from './harness/engines.ts';
import { linkIn, SmtpCapture, startMailCapture, stopMailCapture } from './harness/smtp-capture.ts';
import { assertError, logIn, signUp, uniqueName } from './harness/user-helpers.ts';

const LC_SALT = 'h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2';
const LC_HASH = 'tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==';

/** The row with this objectId (the test fails when there is none). */
function byId(rows: Record<string, any>[], id: string): Record<string, any> {
  const row = rows.find((r) => r.objectId === id);
  assert.ok(row, `no row ${id}`);
  return row;
}

async function create(h: Harness, className: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.client.post(`/1.1/classes/${className}`, body, { master: true });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.objectId as string;
}

forEachEngine('export: permissions and validation', (h) => {
  test('only the master key may start an export or read a job', async () => {
    assertError(await h().client.post('/1.1/exportData', {}, { auth: false }), 401, 401);
    assertError(await h().client.post('/1.1/exportData', {}), 403, 1);
    const user = await signUp(h());
    assertError(await h().client.post('/1.1/exportData', {}, { session: user.sessionToken }), 403, 1);
    const started = await h().client.post('/1.1/exportData', { classes: '_User', 'only-schema': 'true' }, { master: true });
    assert.equal(started.status, 200);
    assertError(await h().client.get(`/1.1/exportData/${started.body.id}`), 403, 1);
    assertError(await h().client.get(`/1.1/exportData/${started.body.id}`, undefined, { auth: false }), 401, 401);
    await waitJob(h(), started.body.id);
  });

  test('bad parameters are refused with a clear error and start no job', async () => {
    const cases: [unknown, number, number, RegExp][] = [
      [{ from_date: 'yesterday' }, 400, 1, /from_date/],
      [{ to_date: '2015-02-30' }, 400, 1, /to_date/],
      [{ from_date: '2020-01-02', to_date: '2020-01-01' }, 400, 1, /before/],
      [{ from_date: { $gt: '' } }, 400, 1, /must be a string/],
      [{ 'only-schema': 'maybe' }, 400, 1, /only-schema/],
      [{ classes: 'Good,bad name' }, 400, 103, /class name/],
      [{ classes: '_Larder' }, 400, 103, /class name/],
      [{ classes: 'NoSuchClass,_User' }, 404, 101, /NoSuchClass/],
      [{ email: 'not-an-address' }, 400, 125, /email/],
      [[1, 2], 400, 107, /object/],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await h().client.post('/1.1/exportData', body, { master: true });
      assertError(res, status, code);
      assert.match(res.body.error, message, JSON.stringify(body));
    }
    const rows = await h().db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM _larder_export_jobs WHERE params->>'email' = 'not-an-address'`);
    assert.equal(rows[0].n, 0);
  });

  test('parameters may come in the query string too', async () => {
    const res = await h().client.post('/1.1/exportData', undefined, { master: true, query: { classes: '_Role', 'only-schema': 'true' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const done = await waitJob(h(), res.body.id);
    const { entries } = await downloadArchive(h(), done.download_url as string);
    assert.deepEqual([...entries.keys()], ['_Role_schema.json']);
  });

  test('an unknown or malformed job id is 404 code 404', async () => {
    for (const id of ['x'.repeat(48), 'short', 'A'.repeat(200)]) {
      const res = await h().client.get(`/1.1/exportData/${id}`, undefined, { master: true });
      assertError(res, 404, 404);
      assert.match(res.body.error, /Export job/);
    }
  });
});

forEachEngine('export: the archive', (h) => {
  let fileId: string;
  let ids: Record<string, string>;
  let nativeUser: { objectId: string; username: string; password: string };
  let lcUserId: string;
  let roleId: string;

  before(async () => {
    const file = await h().client.post('/1.1/files', { name: 'a.png', url: 'https://files.example.com/a.png', metaData: { owner: 'unknown', __source: 'external', size: 3 } });
    assert.equal(file.status, 201, JSON.stringify(file.body));
    fileId = file.body.objectId;
    const target = await create(h(), 'ExTarget', { title: 't1' });
    const target2 = await create(h(), 'ExTarget', { title: 't2' });
    const every = await create(h(), 'ExEvery', {
      str: 'héllo "quoted"\n', num: 1.5, int: 42, yes: true, nothing: null,
      when: { __type: 'Date', iso: '2021-03-04T05:06:07.089Z' },
      bytes: { __type: 'Bytes', base64: 'AAEC/w==' },
      where: { __type: 'GeoPoint', latitude: 48.8566, longitude: 2.3522 },
      ptr: { __type: 'Pointer', className: 'ExTarget', objectId: target },
      pic: { __type: 'File', id: fileId },
      list: [1, 'two', { three: 3 }, { __type: 'Pointer', className: 'ExTarget', objectId: target2 }],
      obj: { a: { b: [true, null] } },
      likes: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'ExTarget', objectId: target }, { __type: 'Pointer', className: 'ExTarget', objectId: target2 }] },
      ACL: { '*': { read: true }, 'role:admins': { write: true } },
    });
    const secret = await create(h(), 'ExEvery', { str: 'private', ACL: {} });
    ids = { target, target2, every, secret };
    const u = await signUp(h(), { email: `${uniqueName('e')}@example.test` });
    nativeUser = { objectId: u.objectId, username: u.username, password: u.password };
    // A user imported from LeanCloud: its hash and salt as the console export wrote them.
    const lc = await signUp(h());
    lcUserId = lc.objectId;
    await h().db.query(sql`UPDATE "_User" SET data = data || ${JSON.stringify({ password: LC_HASH, salt: LC_SALT })}::jsonb WHERE "objectId" = ${lcUserId}`);
    const role = await h().client.post('/1.1/roles', {
      name: 'admins', ACL: { '*': { read: true } },
      users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: u.objectId }] },
    }, { master: true });
    assert.equal(role.status, 201, JSON.stringify(role.body));
    roleId = role.body.objectId;
  });

  test('running, then done with a download_url; the archive streams as application/gzip', async () => {
    const started = await h().client.post('/1.1/exportData', {}, { master: true });
    assert.equal(started.status, 200);
    assert.deepEqual(Object.keys(started.body).sort(), ['app_id', 'id', 'status']);
    assert.equal(started.body.status, 'running');
    assert.equal(started.body.app_id, h().app.keys.appId);
    assert.match(started.body.id, /^[A-Za-z0-9]{48}$/);
    const done = await waitJob(h(), started.body.id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(done.id, started.body.id);
    const url = new URL(done.download_url as string);
    assert.equal(url.pathname, `/larder/export/${done.id}.tar.gz`);
    assert.match(url.searchParams.get('token') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const { entries, headers, bytes } = await downloadArchive(h(), url.href);
    assert.equal(headers['content-type'], 'application/gzip');
    assert.equal(Number(headers['content-length']), bytes);
    assert.equal(headers['cache-control'], 'no-store');
    assert.match(String(headers['content-disposition']), /^attachment; filename=".*\.tar\.gz"$/);
    for (const c of ['ExEvery', 'ExTarget', '_User', '_Role', '_File']) {
      assert.ok(entries.has(`${c}.0.jsonl`), c);
      assert.ok(entries.has(`${c}_schema.json`), c);
      assert.deepEqual(readJsonl(entries.get(`${c}.0.jsonl`) as string).header, { type: 'Class', class: c });
    }
    // The header line is exactly LeanCloud's.
    assert.ok((entries.get('ExEvery.0.jsonl') as string).startsWith('#filetype:JSON-streaming {"type":"Class","class":"ExEvery"}\n'));
  });

  test('every row is what the API returns for it (master key, with ACL), dates and types as the format says', async () => {
    const done = await exportAndWait(h(), { classes: 'ExEvery,ExTarget' });
    const { entries } = await downloadArchive(h(), done.download_url as string);
    assert.deepEqual([...entries.keys()].sort(), ['ExEvery.0.jsonl', 'ExEvery_schema.json', 'ExTarget.0.jsonl', 'ExTarget_schema.json', '_Join:likes:ExEvery.0.jsonl']);
    const { rows } = readJsonl(entries.get('ExEvery.0.jsonl') as string);
    assert.equal(rows.length, 2);
    for (const row of rows) {
      const api = await h().client.get(`/1.1/classes/ExEvery/${row.objectId}`, { returnACL: 'true' }, { master: true });
      assert.deepEqual(row, api.body, row.objectId);
      assert.ok(row.ACL, 'ACL on every row');
    }
    const every = byId(rows, ids.every);
    assert.match(every.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(typeof every.updatedAt, 'string');
    assert.deepEqual(every.when, { __type: 'Date', iso: '2021-03-04T05:06:07.089Z' });
    assert.deepEqual(every.bytes, { __type: 'Bytes', base64: 'AAEC/w==' });
    assert.deepEqual(every.where, { __type: 'GeoPoint', latitude: 48.8566, longitude: 2.3522 });
    assert.deepEqual(every.ptr, { __type: 'Pointer', className: 'ExTarget', objectId: ids.target });
    assert.equal(every.pic.__type, 'File');
    assert.equal(every.pic.id, fileId);
    assert.equal(every.pic.url, 'https://files.example.com/a.png');
    assert.deepEqual(every.likes, { __type: 'Relation', className: 'ExTarget' });
    assert.deepEqual(every.ACL, { '*': { read: true }, 'role:admins': { write: true } });
    assert.equal(every.str, 'héllo "quoted"\n');
    assert.equal(every.nothing, null);
    assert.deepEqual(byId(rows, ids.secret).ACL, {});

    const join = readJsonl(entries.get('_Join:likes:ExEvery.0.jsonl') as string);
    assert.deepEqual(join.header, { type: 'Join', class: '_Join:likes:ExEvery', relatedClass: 'ExTarget' });
    const expected = [ids.target, ids.target2].sort().map((t) => ({ owningId: ids.every, relatedId: t }));
    assert.deepEqual(join.rows.sort((a, b) => (a.relatedId < b.relatedId ? -1 : 1)), expected);

    const schema = JSON.parse(entries.get('ExEvery_schema.json') as string);
    assert.equal(schema.className, 'ExEvery');
    assert.deepEqual(schema.fields.ptr, { type: 'Pointer', className: 'ExTarget' });
    assert.deepEqual(schema.fields.likes, { type: 'Relation', className: 'ExTarget' });
    assert.deepEqual(schema.fields.when, { type: 'Date' });
  });

  test('_User rows carry password and salt as stored, session tokens and authData; _Role membership is a _Join file', async () => {
    const done = await exportAndWait(h(), { classes: '_User,_Role' });
    const { entries } = await downloadArchive(h(), done.download_url as string);
    const users = readJsonl(entries.get('_User.0.jsonl') as string).rows;
    const lc = byId(users, lcUserId);
    assert.equal(lc.password, LC_HASH);
    assert.equal(lc.salt, LC_SALT);
    assert.equal(leancloudHash('password', lc.salt), lc.password, 'the §2.3 test vector');
    assert.ok(lc.ACL);
    const native = byId(users, nativeUser.objectId);
    assert.match(native.password, /^scrypt\$/);
    assert.equal(native.salt, undefined);
    assert.equal(typeof native.sessionToken, 'string');
    assert.equal(native.username, nativeUser.username);
    for (const u of users) for (const k of Object.keys(u)) assert.ok(!k.startsWith('_'), `internal field ${k} exported`);
    // The exported session token is the live one.
    const me = await h().client.get('/1.1/users/me', undefined, { session: native.sessionToken });
    assert.equal(me.status, 200);

    const roles = readJsonl(entries.get('_Role.0.jsonl') as string).rows;
    const admins = byId(roles, roleId);
    assert.equal(admins.name, 'admins');
    assert.deepEqual(admins.ACL, { '*': { read: true } });
    const members = readJsonl(entries.get('_Join:users:_Role.0.jsonl') as string);
    assert.deepEqual(members.header, { type: 'Join', class: '_Join:users:_Role', relatedClass: '_User' });
    assert.deepEqual(members.rows, [{ owningId: roleId, relatedId: nativeUser.objectId }]);
    assert.deepEqual(readJsonl(entries.get('_Join:roles:_Role.0.jsonl') as string).rows, []);
    // Logging in still works after an export (nothing was changed).
    assert.equal((await logIn(h(), { username: nativeUser.username, password: nativeUser.password })).status, 200);
  });

  test('from_date/to_date select by updatedAt (relations follow their owners); only-schema writes schemas only', async () => {
    const old = await create(h(), 'ExDated', { n: 1 });
    const older = await create(h(), 'ExDated', { n: 2, rel: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'ExTarget', objectId: ids.target }] } });
    const recent = await create(h(), 'ExDated', { n: 3, rel: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'ExTarget', objectId: ids.target2 }] } });
    await h().db.query(sql`UPDATE ${ident('ExDated')} SET "updatedAt" = '2020-01-01T12:00:00Z' WHERE "objectId" = ${old}`);
    await h().db.query(sql`UPDATE ${ident('ExDated')} SET "updatedAt" = '2020-01-02T23:59:59.999Z' WHERE "objectId" = ${older}`);
    await h().db.query(sql`UPDATE ${ident('ExDated')} SET "updatedAt" = '2020-01-03T00:00:00Z' WHERE "objectId" = ${recent}`);

    const day = await exportAndWait(h(), { classes: 'ExDated', from_date: '2020-01-02', to_date: '2020-01-02' });
    const dayEntries = (await downloadArchive(h(), day.download_url as string)).entries;
    assert.deepEqual(readJsonl(dayEntries.get('ExDated.0.jsonl') as string).rows.map((r) => r.objectId), [older]);
    assert.deepEqual(readJsonl(dayEntries.get('_Join:rel:ExDated.0.jsonl') as string).rows, [{ owningId: older, relatedId: ids.target }]);

    const from = await exportAndWait(h(), { classes: 'ExDated', from_date: '2020-01-01T12:00:00.001Z' });
    const fromRows = readJsonl((await downloadArchive(h(), from.download_url as string)).entries.get('ExDated.0.jsonl') as string).rows;
    assert.deepEqual(fromRows.map((r) => r.objectId).sort(), [older, recent].sort());

    const schemaOnly = await exportAndWait(h(), { 'only-schema': true });
    const names = [...(await downloadArchive(h(), schemaOnly.download_url as string)).entries.keys()];
    assert.ok(names.length >= 5);
    for (const n of names) assert.match(n, /_schema\.json$/);
    assert.ok(names.includes('ExDated_schema.json'));
  });

  test('a wrong token, another job\'s token, a bad file name and an expired link are the same 404; expired archives are deleted', async () => {
    const a = await exportAndWait(h(), { classes: 'ExTarget' });
    const b = await exportAndWait(h(), { classes: 'ExTarget' });
    const urlA = new URL(a.download_url as string);
    const tokenB = new URL(b.download_url as string).searchParams.get('token') as string;
    const get = (path: string) => h().server.inject({ method: 'GET', url: path });
    const bad = [
      `${urlA.pathname}?token=${'A'.repeat(43)}`,
      `${urlA.pathname}?token=${tokenB}`,
      `${urlA.pathname}`,
      `${urlA.pathname}?token=`,
      `/larder/export/${a.id}.zip${urlA.search}`,
      `/larder/export/${'x'.repeat(48)}.tar.gz${urlA.search}`,
    ];
    const bodies = new Set<string>();
    for (const path of bad) {
      const res = await get(path);
      assert.equal(res.statusCode, 404, path);
      bodies.add(res.body);
    }
    assert.equal(bodies.size, 1);
    assert.equal((await get(urlA.pathname + urlA.search)).statusCode, 200);

    // Eight days on, the link is dead and the status says so; the sweep deletes the file.
    h().app.clock = () => new Date(Date.now() + 8 * 24 * 3600 * 1000);
    try {
      const expired = await get(urlA.pathname + urlA.search);
      assert.equal(expired.statusCode, 404);
      assert.ok(bodies.has(expired.body));
      const status = await h().client.get(`/1.1/exportData/${a.id}`, undefined, { master: true });
      assert.equal(status.body.status, 'expired');
      assert.equal(status.body.download_url, undefined);
      const worker = workerOf(h().app);
      assert.ok(worker);
      assert.ok(existsSync(archivePath(worker.opts.dir, a.id)));
      await worker.cleanup();
      assert.ok(!existsSync(archivePath(worker.opts.dir, a.id)));
      assert.equal((await h().client.get(`/1.1/exportData/${a.id}`, undefined, { master: true })).body.status, 'expired');
      // Thirty days after it ended, the record itself goes.
      h().app.clock = () => new Date(Date.now() + 40 * 24 * 3600 * 1000);
      await worker.cleanup();
      assertError(await h().client.get(`/1.1/exportData/${a.id}`, undefined, { master: true }), 404, 404);
    } finally {
      h().app.clock = undefined;
    }
  });
});

forEachEngine('export: mail when the job ends', (h) => {
  let smtp: SmtpCapture;
  let base: string;
  before(async () => {
    ({ smtp, base } = await startMailCapture(h()));
  });
  after(() => stopMailCapture(h(), smtp));

  test('the email address gets the download link, which works over HTTP', async () => {
    const to = `${uniqueName('x')}@example.test`;
    await create(h(), 'ExMail', { n: 1 });
    const since = smtp.mails.length;
    const done = await exportAndWait(h(), { classes: 'ExMail', email: to });
    assert.equal(done.status, 'done');
    const mail = await smtp.next(to, since);
    assert.match(mail.subject, /data export of testAppId-larder is ready/);
    const link = linkIn(mail);
    assert.equal(link.origin, base);
    assert.equal(link.pathname, `/larder/export/${done.id}.tar.gz`);
    const res = await fetch(link);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/gzip');
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(Number(res.headers.get('content-length')), body.length);
  });

  test('a job that fails ends failed with a reason, and the mail says why', async () => {
    await create(h(), 'ExMail', { n: 2 });
    const worker = workerOf(h().app);
    assert.ok(worker);
    const dir = worker.opts.dir;
    // A directory that cannot be created (its parent is a file): the job fails, never hangs.
    const file = join(tmpdir(), `larder-not-a-dir-${process.pid}`);
    writeFileSync(file, 'x');
    worker.opts.dir = join(file, 'exports');
    try {
      const to = `${uniqueName('f')}@example.test`;
      const since = smtp.mails.length;
      const failed = await exportAndWait(h(), { classes: 'ExMail', email: to });
      assert.equal(failed.status, 'failed');
      assert.match(failed.reason ?? '', /stopped on an error/);
      assert.equal(failed.download_url, undefined);
      const mail = await smtp.next(to, since);
      assert.match(mail.subject, /failed/);
      assert.ok(mail.text.includes(failed.reason as string), mail.text);
    } finally {
      worker.opts.dir = dir;
      rmSync(file, { force: true });
    }
  });
});
