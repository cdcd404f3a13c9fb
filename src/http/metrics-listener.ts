/**
 * The optional metrics listener (LARDER_METRICS_PORT, docs/operations.md): `GET /metrics` on its
 * own address, so that Prometheus scrapes a port the public never reaches and needs no master
 * key. Plain node:http: nothing of the API (no app, no body parsing) is reachable here. When
 * LARDER_METRICS_TOKEN is set, this listener asks for it too (`Authorization: Bearer`).
 */
import { createServer, type Server } from 'node:http';
import { safeEqual } from '../auth/constant-time.ts';
import { metricsContentType } from '../metrics/cluster-metrics.ts';

/** What the listener needs. */
export interface MetricsListenerOptions {
  host: string;
  port: number;
  token?: string;
  /** The text to answer (this process's, or the cluster's). */
  collect: () => Promise<string>;
  onError: (err: Error) => void;
}

/** Starts the listener; resolves with it once it listens. */
export async function startMetricsListener(opts: MetricsListenerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    const auth = req.headers.authorization;
    if (opts.token && !(typeof auth === 'string' && auth.startsWith('Bearer ') && safeEqual(auth.slice(7), opts.token))) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('Reading /metrics needs the metrics token.\n');
      return;
    }
    opts.collect().then(
      (text) => res.writeHead(200, { 'content-type': metricsContentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: Error) => {
        opts.onError(err);
        res.writeHead(503, { 'content-type': 'text/plain' }).end('The metrics could not be collected; try again.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
