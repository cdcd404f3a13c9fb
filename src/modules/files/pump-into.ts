import type { Readable, Writable } from 'node:stream';

/**
 * Streams `body` into `sink` as `stream/promises` pipeline does for two streams: resolves once
 * the sink finished; on an error of either (or a body that closed before its end) destroys both
 * and rejects with that error. Without pipeline's machinery: its finish aborts an
 * AbortController, which builds a DOMException with a stack, per upload (about 40 us of the
 * main thread per request with the pass-through in front; docs/benchmarks.md, Files).
 */
export function pumpInto(body: Readable, sink: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let ended = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      body.unpipe(sink);
      body.destroy(err);
      sink.destroy(err);
      reject(err);
    };
    body.on('error', fail);
    body.on('end', () => (ended = true));
    body.on('close', () => {
      if (!ended) fail(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
    sink.on('error', fail);
    sink.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    body.pipe(sink);
  });
}
