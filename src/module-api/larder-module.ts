import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import type { Route } from '../http/route.ts';
import type { Logger } from '../log.ts';

/**
 * An optional service built on the core (design.md: `src/modules/*`). The core never imports a
 * module; the composition root (src/modules/index.ts) hands the list to createApp, which adds
 * the module's routes to the API dispatcher (same auth, errors and batch as core routes) and
 * lets it attach what is not a plain request/response route, such as a WebSocket endpoint.
 */
export interface LarderModule {
  readonly name: string;
  /** Path prefixes besides /1.1 whose requests go through the API dispatcher, e.g. '/friend'. */
  readonly prefixes?: readonly string[];
  /** The module's API routes (any of its prefixes, or /1.1). */
  routes(): Route[];
  /**
   * Runs once when the server is built: create the module's tables, start listeners, attach
   * upgrade handlers. Resources must be released in a server `onClose` hook.
   */
  mount?(server: FastifyInstance, app: AppContext, logger: Logger): Promise<void>;
}
