// Cloud code status (GET /1.1/larder/engine: engine address, hooks, counters; refresh) and this
// process's metrics (GET /metrics, the same text Prometheus scrapes), summed per metric.
import { api, metricsText } from './api.js';
import { h } from './dom.js';

/** Sums the samples of each larder_* metric (histogram buckets left out). */
function summarise(text) {
  const sums = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('larder_') || line.includes('_bucket')) continue;
    const m = /^([a-z_]+)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (Number.isFinite(value)) sums.set(m[1], (sums.get(m[1]) ?? 0) + value);
  }
  return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

function kv(entries) {
  return h('dl', { class: 'kv' }, entries.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, typeof v === 'string' ? v : JSON.stringify(v))]));
}

/** The status page. */
export async function showStatus(ui) {
  const draw = ui.redraw();
  const engine = await api('GET', '/1.1/larder/engine');
  let metrics;
  try {
    metrics = await metricsText();
  } catch (err) {
    metrics = err;
  }
  const cloud = engine.configured
    ? [kv([['engine', engine.engineUrl], ['staging', engine.stagingUrl ?? 'none'], ['hooks refreshed', engine.refreshedAt ?? 'never']]),
      h('h4', {}, 'Functions and hooks'), h('ul', { id: 'hooks' }, (engine.hooks ?? []).map((n) => h('li', {}, n))),
      h('h4', {}, 'Counters'), kv(Object.entries(engine.counters ?? {})),
      h('button', { type: 'button', onclick: () => ui.run(async () => {
        await api('POST', '/1.1/larder/engine/refresh', {});
        await showStatus(ui);
        // Said after the page is drawn again, so the message is the last thing to change.
        ui.say('Hook list refreshed.');
      }) }, 'Refresh hook list')]
    : [h('p', {}, 'No LeanEngine app is configured (LARDER_ENGINE_URL, docs/cloud-code.md).')];
  draw(h('h2', {}, 'Cloud code'), h('section', { class: 'panel', id: 'cloud' }, cloud),
    h('h2', {}, 'Metrics of this process'),
    metrics instanceof Error
      ? h('p', {}, `Metrics unavailable: ${metrics.message}`)
      : [h('section', { class: 'panel', id: 'metrics' }, kv(summarise(metrics).map(([k, v]) => [k, String(v)]))),
        h('details', {}, h('summary', {}, 'Full /metrics text'), h('pre', {}, metrics))],
    h('p', { class: 'muted' }, 'Logs go to the server\'s standard output (JSON lines; LARDER_REQUEST_LOG=1 adds one line per request): read them with journalctl or docker logs. docs/operations.md explains each metric.'));
}
