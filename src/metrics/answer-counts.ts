/**
 * The HTTP answer metrics (larder_http_requests_total by family, method and status, and
 * larder_http_request_duration_seconds by family and method) counted in plain numbers on the
 * hot path and handed to prom-client only when the metrics are read. prom-client builds and
 * hashes a label string on every `inc` and `observe` (validating the labels each time): 2-2.5%
 * of Larder's CPU on a forwarded cloud function call (docs/benchmarks.md, "Cloud code"). Here an
 * answer costs three map lookups and a few additions; the exported series are the same, with
 * the same counts, sums and buckets (answer-counts.test.ts compares them with prom-client's own).
 */

/** Counts of one (family, method, status): answers not yet handed to the counter. */
interface StatusCount {
  readonly labels: { family: string; method: string; status: string };
  pending: number;
}

/** The durations of one (family, method), as a prom-client histogram keeps them, and its statuses. */
interface Series {
  readonly labels: { family: string; method: string };
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative: [i] counts those <= bounds[i] and > bounds[i-1]. */
  readonly buckets: number[];
  readonly statuses: Map<number, StatusCount>;
}

/** One exported value of the histogram, in prom-client's `get()` shape. */
export interface HistogramValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
  /** null on buckets, undefined on _sum and _count, as prom-client sets them. */
  exemplar: null | undefined;
}

/** The answers of one process, counted locally. */
export class AnswerCounts {
  readonly #bounds: readonly number[];
  /** family -> method -> series; first seen first, as prom-client orders its label sets. */
  #byFamily = new Map<string, Map<string, Series>>();
  /** Series in the order they were first seen (the histogram's export order). */
  #series: Series[] = [];

  /** `bounds`: the histogram's bucket upper bounds, ascending (prom-client's `buckets`). */
  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
  }

  /** Counts one answer: its status for the counter, its duration for the histogram. */
  count(family: string, method: string, status: number, seconds: number): void {
    let methods = this.#byFamily.get(family);
    if (methods === undefined) {
      methods = new Map();
      this.#byFamily.set(family, methods);
    }
    let series = methods.get(method);
    if (series === undefined) {
      series = { labels: { family, method }, count: 0, sum: 0, buckets: new Array<number>(this.#bounds.length).fill(0), statuses: new Map() };
      methods.set(method, series);
      this.#series.push(series);
    }
    let byStatus = series.statuses.get(status);
    if (byStatus === undefined) {
      byStatus = { labels: { family, method, status: String(status) }, pending: 0 };
      series.statuses.set(status, byStatus);
    }
    byStatus.pending += 1;
    series.count += 1;
    series.sum += seconds;
    // As prom-client: the first bound the value does not exceed; above all of them only +Inf.
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]) {
        series.buckets[i] += 1;
        break;
      }
    }
  }

  /** Hands the answers counted since the last call to `inc` (the counter's collect callback). */
  flushCounts(inc: (labels: StatusCount['labels'], n: number) => void): void {
    for (const series of this.#series) {
      for (const s of series.statuses.values()) {
        if (s.pending === 0) continue;
        const n = s.pending;
        s.pending = 0;
        inc(s.labels, n);
      }
    }
  }

  /**
   * The histogram's values as prom-client's Histogram.get() gives them: per series the
   * cumulative buckets (labels `le` first, then the series'), `+Inf`, `_sum` and `_count`.
   */
  histogramValues(name: string): HistogramValue[] {
    const out: HistogramValue[] = [];
    const bucket = `${name}_bucket`;
    for (const s of this.#series) {
      let acc = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        acc += s.buckets[i];
        out.push({ value: acc, metricName: bucket, exemplar: null, labels: { le: this.#bounds[i], ...s.labels } });
      }
      out.push({ value: s.count, metricName: bucket, exemplar: null, labels: { le: '+Inf', ...s.labels } });
      out.push({ value: s.sum, metricName: `${name}_sum`, exemplar: undefined, labels: { ...s.labels } });
      out.push({ value: s.count, metricName: `${name}_count`, exemplar: undefined, labels: { ...s.labels } });
    }
    return out;
  }

  /** Forgets every count (prom-client's `reset`). */
  reset(): void {
    this.#byFamily = new Map();
    this.#series = [];
  }
}
