/**
 * One scrape covers every worker of `larder serve --workers N` (issue 15). The workers share one
 * port, so a scrape reaches whichever worker the kernel picks; that worker asks the cluster
 * primary over IPC, and the primary collects every worker's registry with prom-client's
 * AggregatorRegistry (counters and histograms added up) and answers. The primary's own metrics
 * listener (LARDER_METRICS_PORT, http/metrics-listener.ts) reads the same aggregate directly.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { metricsRegistry } from './registry.ts';

const REQUEST = 'larder:metrics-request';
const ANSWER = 'larder:metrics-answer';
/** Longer than prom-client's own 5 s wait for the workers. */
const WAIT_MS = 6000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

let clusteredWorker = false;
let seq = 0;
const waiting = new Map<number, (a: Answer) => void>();

/** The content type of every metrics answer (Prometheus' text format). */
export const metricsContentType = metricsRegistry.contentType;

/** In a cluster worker: answer the primary's collection, and have /metrics ask the primary. */
export function joinClusterMetrics(): void {
  if (clusteredWorker || !cluster.isWorker) return;
  clusteredWorker = true;
  // Constructing one makes prom-client answer the primary's requests from these registries.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metricsRegistry]);
  process.on('message', (m: unknown) => {
    if (typeof m !== 'object' || m === null || (m as Answer).type !== ANSWER) return;
    const a = m as Answer;
    waiting.get(a.id)?.(a);
  });
}

/** In the cluster primary: collects every worker's metrics, also for workers that ask. */
export function collectInPrimary(): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: unknown) => {
    if (typeof m !== 'object' || m === null || (m as { type?: unknown }).type !== REQUEST) return;
    const id = (m as { id: number }).id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (err: Error) => worker.send({ type: ANSWER, id, error: err.message } satisfies Answer),
    );
  });
  return () => aggregator.clusterMetrics();
}

/** The metrics a scrape of this process answers: the whole cluster's in a cluster worker. */
export function collectMetrics(): Promise<string> {
  if (!clusteredWorker || !process.send) return metricsRegistry.metrics();
  const id = ++seq;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error('the cluster primary did not collect the workers\' metrics in time'));
    }, WAIT_MS);
    waiting.set(id, (a) => {
      clearTimeout(timer);
      waiting.delete(id);
      if (a.text !== undefined) resolve(a.text);
      else reject(new Error(a.error ?? 'no metrics'));
    });
    process.send?.({ type: REQUEST, id });
  });
}
