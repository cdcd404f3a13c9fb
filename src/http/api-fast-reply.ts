/**
 * How the API fast path (api-fast-path.ts) writes an answer: what the Fastify route would send
 * for it (server.ts), byte for byte. @fastify/cors with the `*` policy adds
 * `Access-Control-Allow-Origin: *` to every answer; a JSON body goes out as
 * `application/json; charset=utf-8` with its length; prebuilt JSON text (RawJson) as it is; an
 * error of the body parser closes the connection (the client may still be sending). Answers
 * of any other shape are not written here (`wireText` says undefined) but sent by Fastify.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { countAnswer, rateLimitRefusals } from '../metrics/core-metrics.ts';
import { RawJson } from '../objects/raw-json.ts';
import type { ApiResponse } from './route.ts';

/** Answers at least this long are compressed when the client accepts it (@fastify/compress threshold in server.ts). */
export const COMPRESS_THRESHOLD = 1024;

/** Headers of a handler's answer that Fastify or its plugins treat specially: such answers are Fastify's to send. */
const SPECIAL = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'vary', 'access-control-allow-origin', 'trailer']);

/** Statuses Fastify sends with their body as it is (no 1xx, no bodiless 204/205/304). */
function plainStatus(status: number): boolean {
  return Number.isInteger(status) && status >= 200 && status <= 599 && status !== 204 && status !== 205 && status !== 304;
}

/** True for a body Fastify would serialise with JSON.stringify (not a stream, buffer, error or string). */
function plainJsonValue(b: unknown): b is object {
  if (typeof b !== 'object' || b === null || b instanceof Error || Buffer.isBuffer(b) || ArrayBuffer.isView(b) || b instanceof ArrayBuffer) return false;
  const o = b as { pipe?: unknown; getReader?: unknown; then?: unknown };
  return typeof o.pipe !== 'function' && typeof o.getReader !== 'function' && typeof o.then !== 'function';
}

/**
 * The JSON text of an answer the fast path writes itself; undefined for answers Fastify must
 * send (an unusual status, body or header, or a body JSON.stringify refuses, which Fastify
 * turns into its error answer).
 */
export function wireText(res: ApiResponse): string | undefined {
  if (!plainStatus(res.status)) return undefined;
  if (res.headers) for (const name of Object.keys(res.headers)) if (SPECIAL.has(name.toLowerCase())) return undefined;
  if (res.body instanceof RawJson) return res.body.text;
  if (!plainJsonValue(res.body)) return undefined;
  try {
    const text = JSON.stringify(res.body);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Labels of one answer's metrics, and when it started (performance.now()). */
export interface AnswerMetrics {
  family: string;
  method: string;
  started: number;
}

/** Writes a JSON answer as the Fastify route would, and counts it as the onResponse hook does (observability.ts). */
export function writeJson(res: ServerResponse, status: number, text: string, extra: Readonly<Record<string, string>> | undefined, closeConnection: boolean, m: AnswerMetrics): void {
  const headers: OutgoingHttpHeaders = { 'access-control-allow-origin': '*' };
  if (extra) for (const name of Object.keys(extra)) headers[name.toLowerCase()] = extra[name];
  if (closeConnection) headers.connection = 'close';
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = String(Buffer.byteLength(text));
  res.writeHead(status, headers);
  res.end(text);
  countAnswer(m.family, m.method, status, (performance.now() - m.started) / 1000);
  if (status === 429) rateLimitRefusals.inc({ family: m.family });
}
