/**
 * Writing one request to the LeanEngine app (engine-client.ts): its head, checked so that nothing
 * a caller sent can split it, and a streamed body, chunked when its length is not declared.
 */
import type { Readable } from 'node:stream';
import type { EngineConnection } from './engine-connection.ts';
import { EngineCallError } from './engine-call-error.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;

/** The request line and headers; throws on what cannot be written as HTTP. */
export function requestHead(method: string, path: string, host: string, headers: Readonly<Record<string, string>>, framing: string): string {
  if (!/^\/[\x21-\x7e]*$/.test(path)) throw new EngineCallError('unreachable', 'invalid request path');
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'host' || lower === 'connection') continue;
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new EngineCallError('unreachable', `invalid request header ${JSON.stringify(name)}`);
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
