/**
 * The process's Prometheus metrics (served at /metrics, docs/operations.md). One registry per
 * process: Prometheus scrapes processes, and every app a process serves shares its pool, sockets
 * and event loop. Components add their own metrics with `counter`, `gauge` and `histogram`, which
 * return the existing metric when the name is taken (tests build many apps in one process).
 * Names start with `larder_`; label values must come from small fixed sets, never from requests.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration } from 'prom-client';

/** The registry /metrics serves. */
export const metricsRegistry = new Registry();
/**
 * The event-loop delay histogram (larder_nodejs_eventloop_lag_p50_seconds, ...) samples every
 * EVENT_LOOP_SAMPLE_MS. prom-client's default, 10 ms, wakes an idle process 100 times a second:
 * 5.7 ms of CPU a second in a process doing nothing else, against 1.0 at 50 ms
 * (docs/benchmarks.md, "Cloud code"). A stall still shows in full (it delays the next sample by
 * its length); only the count of samples per scrape is smaller.
 */
const EVENT_LOOP_SAMPLE_MS = 50;
collectDefaultMetrics({ register: metricsRegistry, prefix: 'larder_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

function existing<T>(name: string): T | undefined {
  return metricsRegistry.getSingleMetric(name) as T | undefined;
}

/** A counter in the Larder registry (created once per name). */
export function counter<L extends string>(cfg: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
  return existing<Counter<L>>(cfg.name) ?? new Counter<L>({ ...cfg, registers: [metricsRegistry] });
}

/** A gauge in the Larder registry (created once per name). */
export function gauge<L extends string>(cfg: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
  return existing<Gauge<L>>(cfg.name) ?? new Gauge<L>({ ...cfg, registers: [metricsRegistry] });
}

/** A histogram in the Larder registry (created once per name). */
export function histogram<L extends string>(cfg: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
  return existing<Histogram<L>>(cfg.name) ?? new Histogram<L>({ ...cfg, registers: [metricsRegistry] });
}
