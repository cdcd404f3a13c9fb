/**
 * Writing one request to the LeanEngine app (engine-client.ts): its head, checked so that nothing
 * a caller sent can split it, and a streamed body, chunked when its length is not declared.
 */
import type { Readable } from 'node:stream';
import type { EngineConnection } from './engine-connection.ts';
import { EngineCallError } from './engine-call-error.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;

/**
 * Header names already checked: true when written as given, false when this module writes its
 * own instead (framing, host, connection). The names are a small fixed set (the forwarded client
 * headers, the address headers, Larder's own), so lower-casing and matching each one against the
 * token rule on every call was wasted work on the per-call path (docs/benchmarks.md, "Cloud
 * code"). Names that fail are never kept; the map is bounded, past which names are checked anew.
 */
const checkedNames = new Map<string, boolean>();
const MAX_CHECKED_NAMES = 256;

/** Whether the header `name` is written; throws when it cannot be a header name. */
function written(name: string): boolean {
  const known = checkedNames.get(name);
  if (known !== undefined) return known;
  const lower = name.toLowerCase();
  const own = lower === 'content-length' || lower === 'transfer-encoding' || lower === 'host' || lower === 'connection';
  if (!own && !TOKEN.test(name)) throw new EngineCallError('unreachable', `invalid request header ${JSON.stringify(name)}`);
  if (checkedNames.size < MAX_CHECKED_NAMES) checkedNames.set(name, !own);
  return !own;
}

/** The request line and headers; throws on what cannot be written as HTTP. */
export function requestHead(method: string, path: string, host: string, headers: Readonly<Record<string, string>>, framing: string): string {
  if (!/^\/[\x21-\x7e]*$/.test(path)) throw new EngineCallError('unreachable', 'invalid request path');
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in headers) {
    if (!written(name)) continue;
    const value = headers[name];
    if (BAD_VALUE.test(value)) throw new EngineCallError('unreachable', `invalid request header ${JSON.stringify(name)}`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}${framing}connection: keep-alive\r\n\r\n`;
}

/**
 * Sends a streamed request body on the connection; calls back once all of it was written. With
 * `heads` (no declared length) the body goes chunked, and the head waits for the first piece:
 * a body that turns out empty is sent with Content-Length: 0, as Node's client does.
 */
export function streamBody(body: Readable, conn: EngineConnection, heads: { chunked: Buffer; empty: Buffer } | undefined, onError: (err: Error) => void, onSent: () => void): () => void {
  const socket = conn.socket;
  let started = heads === undefined;
  const onData = (chunk: Buffer) => {
    if (chunk.length === 0) return;
    if (!started) {
      started = true;
      socket.write(heads?.chunked as Buffer);
    }
    const ok = heads ? socket.write(`${chunk.length.toString(16)}\r\n`) && socket.write(chunk) && socket.write('\r\n') : socket.write(chunk);
    if (!ok) {
      body.pause();
      socket.once('drain', () => body.resume());
    }
  };
  const onEnd = () => {
    if (heads) socket.write(started ? '0\r\n\r\n' : heads.empty);
    detach();
    onSent();
  };
  const onFail = (err: Error) => {
    detach();
    onError(err);
  };
  const detach = () => {
    body.off('data', onData);
    body.off('end', onEnd);
    body.off('error', onFail);
  };
  body.on('data', onData);
  body.on('end', onEnd);
  body.on('error', onFail);
  return detach;
}
