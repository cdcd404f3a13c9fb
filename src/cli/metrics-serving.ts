/**
 * Where `larder serve` serves metrics besides the API's `/metrics` (docs/operations.md): the
 * optional listener of LARDER_METRICS_PORT, and with --workers N the collection of every
 * worker's metrics by the cluster primary, so that a scrape covers the whole cluster.
 */
import type { Server } from 'node:http';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';

/** In the cluster primary: collect for the workers, and serve the listener when configured. */
export async function primaryMetrics(config: Config, logger: Logger): Promise<Server | undefined> {
  const { collectInPrimary } = await import('../metrics/cluster-metrics.ts');
  const collect = collectInPrimary();
  return listener(config, logger, collect);
}

/** In a serving process: join the cluster's collection (a worker), or serve the listener (alone). */
export async function processMetrics(config: Config, logger: Logger, clustered: boolean): Promise<Server | undefined> {
  const { joinClusterMetrics, collectMetrics } = await import('../metrics/cluster-metrics.ts');
  if (clustered) {
    joinClusterMetrics();
    return undefined;
  }
  return listener(config, logger, collectMetrics);
}

async function listener(config: Config, logger: Logger, collect: () => Promise<string>): Promise<Server | undefined> {
  if (!config.metricsPort) return undefined;
  const { startMetricsListener } = await import('../http/metrics-listener.ts');
  const server = await startMetricsListener({
    host: config.metricsHost,
    port: config.metricsPort,
    token: config.metricsToken,
    collect,
    onError: (err) => logger.warn({ reason: err.message }, 'metrics: could not collect'),
  });
  logger.info({ host: config.metricsHost, port: config.metricsPort }, 'metrics listener started');
  return server;
}
