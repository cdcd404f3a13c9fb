import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import type { Logger } from '../../../log.ts';

/** Attaches the friends WebSocket endpoint. Filled in by the realtime work. */
export async function mountRealtime(_server: FastifyInstance, _app: AppContext, _logger: Logger): Promise<void> {}
