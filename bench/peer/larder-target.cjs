'use strict';
// Target adapter for the side-by-side harness in ../shared/peer-bench (docs/benchmarks.md, "Side
// by side with Parse Server"): one Larder server, configured by the small files next to this one
// (larder-default.cjs, larder-w2.cjs, larder-pglite.cjs), so that one `bench.js` run can measure
// several Larder servers next to Parse. Unlike the harness's own template it builds the index on
// Bench.n through the admin endpoint (POST /1.1/larder/classes/Bench/indexes), which works on
// both engines while the server holds the data, and it samples the cluster's workers too.
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const env = process.env;
// The harness's directory: the bench.js that loads this adapter (or PEER_BENCH_DIR).
const PEER_BENCH = env.PEER_BENCH_DIR || path.dirname(require.main.filename);
const { restReset } = require(path.join(PEER_BENCH, 'lib/reset'));

const appId = env.LC_APP_ID || 'benchApp';
const appKey = env.LC_APP_KEY || 'benchAppKey';
const masterKey = env.LC_MASTER_KEY || 'benchMasterKey';

/** The server's process and its children (cluster workers): the listening socket names only the primary. */
function processTree(pid) {
  const out = [pid];
  try {
    for (const line of execFileSync('pgrep', ['-P', String(pid)]).toString().split('\n')) if (line.trim()) out.push(Number(line));
  } catch {
    // pgrep exits 1 when there are no children.
  }
  return out;
}

/**
 * @param {{ name: string, port: number, databaseUrl?: string, pidFile: string }} o
 *   databaseUrl: the PostgreSQL database (VACUUM ANALYZE after seeding); none for PGlite.
 */
module.exports = function larderTarget(o) {
  return {
    name: o.name,
    baseUrl: `http://127.0.0.1:${o.port}`,
    prefix: '/1.1',
    headers: { 'X-LC-Id': appId, 'X-LC-Key': appKey },
    masterHeaders: { 'X-LC-Id': appId, 'X-LC-Key': `${masterKey},master` },
    sessionHeader: 'X-LC-Session',
    databaseUrl: o.databaseUrl,
    serverPid() {
      return processTree(Number(readFileSync(o.pidFile, 'utf8').trim()));
    },
    async reset(api, spec) {
      await restReset(api, spec);
    },
    // Every field gets its type from one saved object, the spec's indexes are built, the object goes.
    async prepare(api, spec) {
      const sample = {
        n: 0, s: '', tags: ['t'], score: 0.5, counter: 0,
        owner: { __type: 'Pointer', className: '_User', objectId: '000000000000000000000000' },
      };
      for (const cls of spec.classes) {
        const r = await api.post(`/classes/${cls}`, sample, { master: true, expect: [200, 201] });
        for (const cols of spec.indexes[cls] || []) {
          for (const field of cols) await api.post(`/larder/classes/${cls}/indexes`, { field }, { master: true, expect: [200, 201] });
        }
        await api.del(`/classes/${cls}/${r.body.objectId}`, { master: true, expect: [200] });
      }
    },
  };
};
