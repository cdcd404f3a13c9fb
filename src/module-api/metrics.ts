/** Module surface: the core's metrics that modules feed (docs/observability). */
export { websocketConnections } from '../metrics/core-metrics.ts';
