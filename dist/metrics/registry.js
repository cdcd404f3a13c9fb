/**
 * The process's Prometheus metrics (served at /metrics, docs/operations.md). One registry per
 * process: Prometheus scrapes processes, and every app a process serves shares its pool, sockets
 * and event loop. Components add their own metrics with `counter`, `gauge` and `histogram`, which
 * return the existing metric when the name is taken (tests build many apps in one process).
 * Names start with `larder_`; label values must come from small fixed sets, never from requests.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
/** The registry /metrics serves. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'larder_' });
function existing(name) {
    return metricsRegistry.getSingleMetric(name);
}
/** A counter in the Larder registry (created once per name). */
export function counter(cfg) {
    return existing(cfg.name) ?? new Counter({ ...cfg, registers: [metricsRegistry] });
}
/** A gauge in the Larder registry (created once per name). */
export function gauge(cfg) {
    return existing(cfg.name) ?? new Gauge({ ...cfg, registers: [metricsRegistry] });
}
/** A histogram in the Larder registry (created once per name). */
export function histogram(cfg) {
    return existing(cfg.name) ?? new Histogram({ ...cfg, registers: [metricsRegistry] });
}
//# sourceMappingURL=registry.js.map