/**
 * The metrics of Larder's core, declared in one place so that docs/operations.md can list them
 * and each is created once. Components that own a metric of their own (a module, a limiter)
 * declare it next to their code with the helpers of registry.ts.
 */
import { Histogram, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import { AnswerCounts } from './answer-counts.ts';
import { counter, gauge, histogram, metricsRegistry } from './registry.ts';

/** Bucket upper bounds of larder_http_request_duration_seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** This process's answers, counted locally and read by the two metrics below (answer-counts.ts). */
const answers = new AnswerCounts(DURATION_BUCKETS);

/**
 * Counts one API answer by route family (route-family.ts), method and HTTP status, with its
 * duration: the only way in to the two metrics below, on every path that answers (observability.ts,
 * the fast paths).
 */
export function countAnswer(family: string, method: string, status: number, seconds: number): void {
  answers.count(family, method, status, seconds);
}

/** API requests answered, by route family, method and HTTP status (from countAnswer). */
export const httpRequests = counter({
  name: 'larder_http_requests_total',
  help: 'HTTP requests answered, by route family, method and status code',
  labelNames: ['family', 'method', 'status'] as const,
  collect() {
    answers.flushCounts((labels, n) => this.inc(labels, n));
  },
});

const DURATION_NAME = 'larder_http_request_duration_seconds';

/**
 * A prom-client histogram whose values are AnswerCounts': prom-client has no way to add counted
 * buckets to a histogram, so `get` (what the registry formats and the cluster aggregates)
 * answers them itself, in Histogram's own shape. Nothing observes it directly.
 */
class AnswerDurations extends Histogram<'family' | 'method'> {
  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<'family' | 'method'>>> {
    const values = answers.histogramValues(DURATION_NAME);
    // As Histogram.get() returns it at run time: prom-client's types declare `type` a numeric
    // enum (it is the string) and a collect callback (its get() carries none).
    const data = { name: DURATION_NAME, help: DURATION_HELP, type: 'histogram', aggregator: 'sum', values };
    return data as unknown as MetricObjectWithValues<MetricValueWithName<'family' | 'method'>>;
  }

  /** What the registry formats (prom-client's Registry asks a histogram for this, not get()). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<'family' | 'method'>>> {
    return this.get();
  }

  override reset(): void {
    super.reset();
    answers.reset();
  }
}

const DURATION_HELP = 'HTTP request duration in seconds, by route family and method';

/** Time from request to response, by route family and method (from countAnswer). */
export const httpDuration: Histogram<'family' | 'method'> =
  (metricsRegistry.getSingleMetric(DURATION_NAME) as Histogram<'family' | 'method'> | undefined) ??
  new AnswerDurations({ name: DURATION_NAME, help: DURATION_HELP, labelNames: ['family', 'method'] as const, buckets: DURATION_BUCKETS, registers: [metricsRegistry] });

/** Requests refused with HTTP 429, by route family: every rate limit of the API counts here. */
export const rateLimitRefusals = counter({
  name: 'larder_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit (HTTP 429), by route family',
  labelNames: ['family'] as const,
});

/**
 * Statements that had to queue for a pool connection (none idle, the pool at its size). Counted
 * when the statement starts, from two pool counters: no timing on the hot path.
 */
export const dbPoolWaits = counter({
  name: 'larder_db_pool_waits_total',
  help: 'Statements that waited for a PostgreSQL pool connection (every connection busy)',
});

/**
 * How long the statements counted by dbPoolWaits waited for their connection. Only those are
 * timed (the rest get an idle connection at once), so the hot path takes no clock readings.
 */
export const dbPoolWaitSeconds = histogram({
  name: 'larder_db_pool_wait_seconds',
  help: 'Time statements that found every PostgreSQL pool connection busy waited for one, in seconds',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

/** Class queries that waited for a slot of the heavy lane (storage/heavy-lane.ts). */
export const heavyLaneWaits = counter({
  name: 'larder_heavy_query_waits_total',
  help: 'Class queries (find, count) that waited for a slot of expensive queries (LARDER_HEAVY_QUERY_SLOTS)',
});

/** Statements cancelled by the statement timeout (code 124 to the client). */
export const statementTimeouts = counter({
  name: 'larder_db_statement_timeouts_total',
  help: 'SQL statements cancelled by LARDER_STATEMENT_TIMEOUT_MS',
});

/**
 * Embedded engine: how long replacing a cancelled worker took (its spare starting PostgreSQL on
 * the data directory), the time every other statement waited on top of the cancelled one.
 */
export const embeddedReopenSeconds = histogram({
  name: 'larder_embedded_reopen_seconds',
  help: 'Embedded engine: time to reopen the database after a cancelled statement, in seconds',
  buckets: [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 5, 10],
});

/**
 * The CPU time of those reopens on the engine's thread (Linux): PostgreSQL's start on the data
 * directory. Close to larder_embedded_reopen_seconds on an idle machine; far below it when the
 * reopen waited for a CPU (a busy machine).
 */
export const embeddedReopenCpuSeconds = histogram({
  name: 'larder_embedded_reopen_cpu_seconds',
  help: 'Embedded engine: CPU time of the engine thread reopening the database after a cancelled statement, in seconds',
  buckets: [0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2.5],
});

/** Open WebSocket connections, by service (friends, livequery, ...). */
export const websocketConnections = gauge({
  name: 'larder_websocket_connections',
  help: 'Open WebSocket connections, by service',
  labelNames: ['service'] as const,
});

/** Export jobs that ended in this process, by outcome. */
export const exportJobs = counter({
  name: 'larder_export_jobs_total',
  help: 'Data export jobs run by this process, by outcome (done, failed)',
  labelNames: ['outcome'] as const,
});

/** Export jobs running in this process now. */
export const exportJobsRunning = gauge({
  name: 'larder_export_jobs_running',
  help: 'Data export jobs running in this process',
});
