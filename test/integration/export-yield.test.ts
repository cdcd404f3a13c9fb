// An export is background work and gives way to requests instead of failing: on the embedded
// engine a statement holding the database while requests wait is cancelled (124, the slice),
// and a page of a thousand large objects takes longer than a short slice. The job reads such a
// page again with fewer rows and ends done with every row once, while requests keep flowing.
// (On PostgreSQL there is no slice; the same scenario must simply end done.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from '../../src/sql/fragment.ts';
import { createClassTable } from '../../src/storage/class-table.ts';
import { forEachEngine } from './harness/engines.ts';
import { downloadArchive, readJsonl, waitJob } from './harness/export-archive.ts';

const ROWS = 2000;

/**
 * Runs a set-up step again when the slice cut it: background timers of the app may wait behind
 * it on a loaded machine. A cut statement is rolled back, so trying again is safe.
 */
async function setUp<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= 10 || (err as { code?: number }).code !== 124) throw err;
    }
  }
}

/** A request answer of a set-up step; a 124 becomes an error setUp tries again. */
function ok<T extends { status: number; body: any }>(res: T, status: number): T {
  if (res.status === 503 && res.body.code === 124) throw Object.assign(new Error('cut by the slice'), { code: 124 });
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res;
}

forEachEngine('export: pages give way to requests on a short slice', (h) => {
  test('the job ends done with every row once while GETs keep the engine busy', async () => {
    for (const ddl of createClassTable('YieldBig')) await setUp(() => h().db.query(ddl));
    // About 20 KB per object: a page of 1000 is 20 MB of JSON, far beyond a 150 ms slice; 25 fit.
    // In small statements, each tried again if the slice cut it.
    for (let from = 1; from <= ROWS; from += 20) {
      await setUp(() => h().db.query(sql`INSERT INTO "YieldBig" SELECT lpad(g::text, 8, '0'), now(), now(), NULL, '{*}', '{*}',
        jsonb_build_object('n', g, 'pad', repeat(md5(g::text), 640)) FROM generate_series(${from}::int, ${Math.min(ROWS, from + 19)}::int) g`));
    }
    await setUp(() => h().db.query(sql`INSERT INTO _larder_classes (name, fields) VALUES ('YieldBig', '{"n":{"type":"Number"},"pad":{"type":"String"}}') ON CONFLICT DO NOTHING`));

    const small = (await setUp(async () => ok(await h().client.post('/1.1/classes/Small', { n: 1 }, { master: true }), 201))).body.objectId as string;
    const started = await setUp(async () => ok(await h().client.post('/1.1/exportData', { classes: 'YieldBig' }, { master: true }), 200));
    const id: string = started.body.id;
    // Two loops of plain GETs: there is nearly always a request waiting behind the export's page.
    let stop = false;
    let gets = 0;
    const loop = async () => {
      while (!stop) {
        const res = await h().client.get('/1.1/classes/Small/' + small, undefined, { master: true });
        // A GET is cut by the slice too when it holds the engine while the export waits (a
        // loaded machine); that is the slice working, not the export failing.
        if (res.status === 503 && res.body.code === 124) continue;
        assert.equal(res.status, 200, JSON.stringify(res.body));
        gets++;
      }
    };
    const loops = [loop(), loop()];
    let done;
    try {
      done = await waitJob(h(), id, 240_000);
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.ok(gets > 0);
    const { entries } = await downloadArchive(h(), done.download_url as string);
    const { rows } = readJsonl(entries.get('YieldBig.0.jsonl') as string);
    assert.equal(rows.length, ROWS);
    assert.equal(new Set(rows.map((r) => r.objectId)).size, ROWS, 'no row twice');
  });
}, { embeddedSliceMs: 150 });
