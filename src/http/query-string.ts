/**
 * The one parser of URL query strings, for Fastify's router (server.ts) and for the API fast
 * path (api-fast-path.ts), so both read `?where=...&limit=...` alike. It is the parser
 * Fastify's router uses by default (fast-querystring: repeated keys give a list, `+` is a
 * space), named here so that neither side can drift from the other.
 */
import { parse } from 'fast-querystring';

/** The parameters of the text after `?` (without the `?`); `{}` for none. */
export function parseQueryString(text: string): Record<string, unknown> {
  return text.length === 0 ? {} : (parse(text) as Record<string, unknown>);
}
