/**
 * `node bench/path-micro.mjs <baseline checkout> [calls per round] [rounds]`: CPU per call of three
 * pieces of a forwarded cloud call and of an API request, this checkout's `dist/` against the
 * baseline's (both built), in alternating rounds in one process: `requestHead` (the request to
 * the engine, with the headers a function call forwards), the answer parser on LeanEngine's own
 * answer to `hello` (as captured from test/fixtures/engine-app), and the route table's `match`
 * for a create (the real table: API routes and the default modules'). Prints each round's
 * this/baseline ratio and the median. Pieces too small (about 1-3 us) for a whole-server A/B on
 * a busy machine to resolve (docs/benchmarks.md, "Cloud code").
 */
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('..', import.meta.url));
const base = process.argv[2];
if (!base) throw new Error('usage: node bench/path-micro.mjs <baseline checkout> [calls] [rounds]');
const N = Number(process.argv[3] ?? 200000);
const ROUNDS = Number(process.argv[4] ?? 12);

async function pieces(root) {
  const dist = `${root}/dist`;
  const [{ requestHead }, { AnswerParser }, { apiRoutes }, { modulesFromConfig }, { loadConfig }, { RouteTable }, { batchRoutes }] = await Promise.all([
    import(`${dist}/cloud/engine-request.js`),
    import(`${dist}/cloud/answer-parser.js`),
    import(`${dist}/app.js`),
    import(`${dist}/modules/index.js`),
    import(`${dist}/config.js`),
    import(`${dist}/http/route-table.js`),
    import(`${dist}/http/routes/batch.js`),
  ]);
  const routes = [...apiRoutes(), ...modulesFromConfig(loadConfig({}, {})).flatMap((m) => m.routes())];
  const table = new RouteTable([...routes, ...batchRoutes(new RouteTable(routes), { child: () => ({}) })]);
  const parser = new AnswerParser();
  return { requestHead, parser, table };
}

const headers = { 'content-type': 'application/json', 'user-agent': 'autocannon', 'x-lc-id': 'benchAppId0000000', 'x-lc-key': 'benchAppKey000000000000', 'x-lc-session': 'r:abcdef0123456789', 'x-lc-prod': '1', 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' };
const answer = Buffer.from('HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Type: application/json; charset=UTF-8\r\nDate: Sat, 28 Nov 2026 00:52:33 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 24\r\n\r\n{"result":"hello world"}', 'latin1');
let sink = 0;
const sinkOf = { head: (h) => (sink += h.status + String(h.headers['content-type']).length), data: (c) => (sink += c.length), end: (r) => (sink += r ? 1 : 0), error: (m) => { throw new Error(m); } };

const tasks = {
  requestHead: (p) => () => (sink += p.requestHead('POST', '/1.1/functions/hello', '127.0.0.1:3000', headers, 'content-length: 2\r\n').length),
  'answer parser': (p) => () => {
    p.parser.expect(sinkOf);
    p.parser.feed(answer);
  },
  'route match (create)': (p) => () => (sink += p.table.match('POST', '/1.1/classes/Counter').kind.length),
};

function cpuPerCall(f) {
  const t = process.cpuUsage();
  for (let i = 0; i < N; i++) f();
  const d = process.cpuUsage(t);
  return ((d.user + d.system) / N) * 1000;
}

const [mine, theirs] = await Promise.all([pieces(here), pieces(base)]);
for (const [name, make] of Object.entries(tasks)) {
  const a = make(theirs);
  const b = make(mine);
  for (let i = 0; i < 3; i++) cpuPerCall(a), cpuPerCall(b);
  const ratios = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which side goes first: the machine's load drifts within a round too.
    const [x, y] = r % 2 ? [cpuPerCall(b), cpuPerCall(a)].reverse() : [cpuPerCall(a), cpuPerCall(b)];
    ratios.push({ base: x, mine: y, ratio: y / x });
  }
  const sorted = ratios.map((r) => r.ratio).sort((p, q) => p - q);
  const med = (xs) => [...xs].sort((p, q) => p - q)[xs.length >> 1];
  console.log(
    `${name}: baseline ${med(ratios.map((r) => r.base)).toFixed(0)} ns, this ${med(ratios.map((r) => r.mine)).toFixed(0)} ns (medians); ` +
      `per-round ratio ${sorted[ROUNDS >> 1].toFixed(3)} (${sorted[0].toFixed(3)}-${sorted.at(-1).toFixed(3)}), this lower in ${ratios.filter((r) => r.ratio < 1).length} of ${ROUNDS}`,
  );
}
if (sink === 0) console.log('');
