/**
 * HTTP details of the /friend endpoints that the core dispatcher does not know about:
 *
 * - The spec answers 400 {code:400, error:"Missing request header"} on the friends endpoints
 *   (the core would say 401 for a missing X-LC-Id or key), so that check runs first here.
 * - Token fields are localized by Accept-Language, but handlers see no headers: the header is
 *   handed over as a reserved query parameter (always overwritten, so a client cannot pass one
 *   value as the header and another as the parameter).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { friendsError } from '../friends-errors.ts';

/** Query key carrying the request's Accept-Language header to the handlers. */
export const ACCEPT_LANGUAGE_PARAM = '__acceptLanguage';

function header(req: FastifyRequest, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = req.headers[n];
    const s = Array.isArray(v) ? v[0] : v;
    if (s !== undefined && s.trim() !== '') return s;
  }
  return undefined;
}

function isFallbackBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && '_ApplicationId' in body;
}

/** Installs the hooks for every /friend route (this module's and the friend models'). */
export function installFriendsRequestHooks(server: FastifyInstance): void {
  server.addHook('preHandler', async (req) => {
    if (!req.url.startsWith('/friend/') || req.method === 'OPTIONS') return;
    const q = req.query;
    if (typeof q === 'object' && q !== null) {
      const query = q as Record<string, unknown>;
      const lang = header(req, 'accept-language');
      if (lang === undefined) delete query[ACCEPT_LANGUAGE_PARAM];
      else query[ACCEPT_LANGUAGE_PARAM] = lang.slice(0, 512);
    }
    if (isFallbackBody(req.body)) return;
    if (!header(req, 'x-lc-id', 'x-avoscloud-application-id', 'x-uluru-application-id')) {
      throw friendsError('friendsMissingHeader', 'Missing request header: X-LC-Id.');
    }
    if (!header(req, 'x-lc-key', 'x-lc-sign', 'x-avoscloud-application-key', 'x-avoscloud-master-key', 'x-avoscloud-request-sign', 'x-uluru-application-key', 'x-uluru-master-key', 'x-uluru-request-sign')) {
      throw friendsError('friendsMissingHeader', 'Missing request header: X-LC-Key (or X-LC-Sign).');
    }
  });
}
