// A rollback runs an older Larder on the database: it refuses a database that a newer version
// migrated (docs/backup.md#upgrades-and-rollbacks), on every engine, and changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { MIGRATIONS, migrate } from '../../src/storage/migrations.ts';
import { forEachEngine } from './harness/engines.ts';

forEachEngine('migrations from a newer version', (h) => {
  test('an older Larder refuses to start on them and says what to do', async () => {
    const newest = Math.max(...MIGRATIONS.map((m) => m.version));
    assert.deepEqual(await migrate(h().db), [], 'an up-to-date database needs nothing');
    await h().db.query(sql`INSERT INTO _larder_migrations (version, name) VALUES (${newest + 1}, 'from the future')`);
    try {
      await assert.rejects(migrate(h().db), new RegExp(`migrated by a newer Larder \\(migration ${newest + 1}; this version knows up to ${newest}\\).*restore the backup`));
    } finally {
      await h().db.query(sql`DELETE FROM _larder_migrations WHERE version = ${newest + 1}`);
    }
    assert.deepEqual(await migrate(h().db), []);
  });
});
