// Backup and restore (src/backup/) on each engine, and `larder move` (embedded -> PostgreSQL when
// TEST_DATABASE_URL is set): an app with users, a role, a file, typed objects, settings, an index
// and class permissions is copied; the copy serves the same objects, logs the user in with the
// same password, finds the role's users, serves the file's bytes and keeps keys and settings.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.ts';
import { moveApp } from '../../src/backup/move-app.ts';
import { restoreBackup } from '../../src/backup/read-backup.ts';
import { writeBackup } from '../../src/backup/write-backup.ts';
import { createLogger } from '../../src/log.ts';
import { FILE_DEFAULTS } from '../../src/modules/files/files-options.ts';
import { defaultModules } from '../../src/modules/index.ts';
import { openApp } from '../../src/open-app.ts';
import type { Database } from '../../src/storage/database.ts';
import { openDatabase } from '../../src/storage/open-database.ts';
import { sql } from '../../src/sql/fragment.ts';
import { TestClient } from './harness/client.ts';
import { engines, startHarness, TEST_KEYS, type Harness } from './harness/engines.ts';

type Json = Record<string, any>;

/** A fresh, empty database of an engine (PGlite in memory, or a new PostgreSQL schema). */
async function emptyDatabase(engine: 'pglite' | 'postgres'): Promise<Database> {
  return openDatabase({
    databaseUrl: engine === 'postgres' ? process.env.TEST_DATABASE_URL : undefined,
    schema: `t_${randomBytes(6).toString('hex')}`, poolSize: 3, statementTimeoutMs: 20000, embeddedSliceMs: 0,
  });
}

/** Opens an app on a restored database WITHOUT giving keys: they must come from the data. */
async function serveCopy(db: Database, filesDir: string): Promise<{ server: FastifyInstance; client: TestClient; keys: Json }> {
  const { app, generatedKeys } = await openApp({ db, keys: {}, masterSignWindowMs: 900000 });
  assert.deepEqual(generatedKeys, [], 'no key is generated on a restored app');
  const server = await createApp(app, { logger: createLogger('silent'), modules: defaultModules({ files: { backend: 'local', dir: filesDir, ...FILE_DEFAULTS } }) });
  await server.ready();
  return { server, client: new TestClient(server), keys: app.keys };
}

/** Fills an app with one of everything backup must carry; returns what to compare. */
async function seed(h: Harness): Promise<Json> {
  const api = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => h.client.request({ method, url, body, master: true });
  const ann = await api('POST', '/1.1/users', { username: 'ann', password: 'pw-secret-1', email: 'ann@example.com' });
  assert.equal(ann.status, 201, ann.text);
  const role = await api('POST', '/1.1/roles', { name: 'Admins', ACL: { '*': { read: true } }, users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: ann.body.objectId }] } });
  assert.equal(role.status, 201, role.text);
  const base = await h.listen();
  const up = await fetch(`${base}/1.1/files/hello.txt`, { method: 'POST', headers: { 'X-LC-Id': TEST_KEYS.appId, 'X-LC-Key': TEST_KEYS.appKey, 'content-type': 'text/plain' }, body: 'hello bytes' });
  assert.equal(up.status, 201);
  const file = (await up.json()) as Json;
  const post = await api('POST', '/1.1/classes/Post', {
    title: 'kept', n: 7, at: { __type: 'Date', iso: '2026-03-04T05:06:07.089Z' }, where: { __type: 'GeoPoint', latitude: 1.5, longitude: 2.5 },
    owner: { __type: 'Pointer', className: '_User', objectId: ann.body.objectId }, attachment: { __type: 'File', objectId: file.objectId },
    tags: ['a', 'b'], ACL: { [ann.body.objectId]: { read: true, write: true } },
  });
  assert.equal(post.status, 201, post.text);
  assert.equal((await api('PUT', '/1.1/larder/settings', { includeACLInQueries: true })).status, 200);
  assert.equal((await api('POST', '/1.1/larder/classes/Post/indexes', { field: 'title' })).status, 201);
  assert.equal((await api('PUT', '/1.1/larder/classes/Post/permissions', { create: { onlySignInUsers: true } })).status, 200);
  const stored = (await api('GET', `/1.1/classes/Post/${post.body.objectId}`)).body;
  return { stored, fileKey: new URL(file.url).pathname, annId: ann.body.objectId };
}

/** Checks that `client` serves the seeded app. */
async function expectSameApp(client: TestClient, keys: Json, seeded: Json): Promise<void> {
  assert.deepEqual({ appId: keys.appId, appKey: keys.appKey, masterKey: keys.masterKey }, TEST_KEYS);
  const api = (method: 'GET' | 'POST', url: string, body?: unknown) => client.request({ method, url, body, master: true });
  assert.deepEqual((await api('GET', `/1.1/classes/Post/${seeded.stored.objectId}`)).body, seeded.stored);
  const login = await client.request({ method: 'POST', url: '/1.1/login', body: { username: 'ann', password: 'pw-secret-1' } });
  assert.equal(login.status, 200, login.text);
  const where = JSON.stringify({ $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: (await api('GET', '/1.1/classes/_Role')).body.results[0].objectId }, key: 'users' } });
  assert.deepEqual((await api('GET', `/1.1/classes/_User?where=${encodeURIComponent(where)}`)).body.results.map((u: Json) => u.username), ['ann']);
  const bytes = await client.request({ url: seeded.fileKey, auth: false });
  assert.equal(bytes.text, 'hello bytes');
  assert.equal((await api('GET', '/1.1/larder/settings')).body.includeACLInQueries, true);
  assert.deepEqual((await api('GET', '/1.1/larder/indexes?className=Post')).body.results.map((i: Json) => [i.field, i.state]), [['title', 'ready']]);
  assert.deepEqual((await api('GET', '/1.1/larder/classes/Post/permissions')).body.create, { onlySignInUsers: true });
  // The copy takes new writes (keys, sequences and constraints are in place).
  assert.equal((await api('POST', '/1.1/classes/Post', { title: 'new' })).status, 201);
  const dup = await client.request({ method: 'POST', url: '/1.1/users', body: { username: 'ann', password: 'x-123456' } });
  assert.equal(dup.body.code, 202, 'the unique username index came back');
}

for (const engine of engines()) {
  describe(`backup and restore [${engine}]`, () => {
    let h: Harness & { stop(): Promise<void> };
    let work: string;
    let seeded: Json;
    before(async () => {
      work = await mkdtemp(join(tmpdir(), 'larder-backup-test-'));
      h = await startHarness(engine, { modules: { files: { backend: 'local', dir: join(work, 'files'), ...FILE_DEFAULTS } } });
      seeded = await seed(h);
    });
    after(async () => {
      await h?.stop();
      await rm(work, { recursive: true, force: true });
    });

    test('a backup restored into an empty database serves the same app', async () => {
      const archive = join(work, 'app.tar.gz');
      const manifest = await writeBackup({ db: h.db, filesDir: join(work, 'files') }, archive);
      assert.equal(manifest.files, 1);
      assert.equal(manifest.tables.Post, 1);
      const db = await emptyDatabase(engine);
      let server: FastifyInstance | undefined;
      try {
        const restored = await restoreBackup(db, archive, join(work, 'files2'));
        assert.equal(restored.files, 1);
        const copy = await serveCopy(db, join(work, 'files2'));
        server = copy.server;
        await expectSameApp(copy.client, copy.keys, seeded);
        // Restore never merges into a database that holds an app.
        await assert.rejects(restoreBackup(db, archive, join(work, 'files3')), /already holds/);
        await assert.rejects(restoreBackup(await emptyDatabaseOnce(engine), archive, join(work, 'files2')), /not empty/);
      } finally {
        await server?.close();
        if (db.engine === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS "${db.schema}" CASCADE`);
        await db.close();
      }
    });

    test('a damaged archive is refused and leaves the target empty', async () => {
      const archive = join(work, 'app.tar.gz');
      const { readFile, writeFile } = await import('node:fs/promises');
      const bytes = await readFile(archive);
      await writeFile(join(work, 'cut.tar.gz'), bytes.subarray(0, Math.floor(bytes.length / 2)));
      const db = await emptyDatabase(engine);
      try {
        await assert.rejects(restoreBackup(db, join(work, 'cut.tar.gz'), join(work, 'files4')));
        const [{ n }] = await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema()`);
        assert.equal(n, 0);
      } finally {
        if (db.engine === 'postgres') await db.exec(`DROP SCHEMA IF EXISTS "${db.schema}" CASCADE`);
        await db.close();
      }
    });
  });
}

let spare: Database | undefined;
/** A throwaway empty database for a check that must fail before touching it. */
async function emptyDatabaseOnce(engine: 'pglite' | 'postgres'): Promise<Database> {
  spare = spare ?? (await emptyDatabase(engine));
  return spare;
}
after(async () => {
  if (spare?.engine === 'postgres') await spare.exec(`DROP SCHEMA IF EXISTS "${spare.schema}" CASCADE`);
  await spare?.close();
});

describe('larder move: embedded app to another database', () => {
  test(`PGlite -> ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite (no TEST_DATABASE_URL)'}: keys, data, users, roles, file records, settings, indexes`, async () => {
    const work = await mkdtemp(join(tmpdir(), 'larder-move-test-'));
    const h = await startHarness('pglite', { modules: { files: { backend: 'local', dir: join(work, 'files'), ...FILE_DEFAULTS } } });
    const target = await emptyDatabase(process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
    let server: FastifyInstance | undefined;
    try {
      const seeded = await seed(h);
      const copied = await moveApp(h.db, target);
      assert.equal(copied.Post, 1);
      assert.equal(copied._User, 1);
      // The files folder stays where it is; the server on the new database keeps using it.
      const copy = await serveCopy(target, join(work, 'files'));
      server = copy.server;
      await expectSameApp(copy.client, copy.keys, seeded);
      await assert.rejects(moveApp(h.db, target), /already holds/);
    } finally {
      await server?.close();
      await h.stop();
      if (target.engine === 'postgres') await target.exec(`DROP SCHEMA IF EXISTS "${target.schema}" CASCADE`);
      await target.close();
      await rm(work, { recursive: true, force: true });
    }
  });
});
