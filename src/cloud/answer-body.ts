/**
 * Reading an engine answer's body: whole into one buffer up to a limit (hooks, small function
 * answers), or streamed through a byte limit (function answers passed back as they come).
 */
import { Transform } from 'node:stream';
import { EngineCallError } from './engine-call-error.ts';
import type { StreamedAnswer } from './engine-client.ts';

/**
 * Reads the rest of an answer into one buffer, at most `maxBytes`; the deadline of the call
 * still applies while it arrives.
 */
export function readWhole(answer: StreamedAnswer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const body = answer.body;
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const stop = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        over = true;
        stop();
        body.destroy();
        return reject(new EngineCallError('too-large', `answer larger than ${maxBytes} bytes`));
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      answer.done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    // The deadline destroyed the body, or the engine went away while answering.
    const onError = (err: Error) => {
      stop();
      if (!over) reject(err instanceof EngineCallError ? err : new EngineCallError(answer.timedOut() ? 'timeout' : 'unreachable', err.message));
    };
    const onClose = () => onError(new Error('the answer ended early'));
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/**
 * A pass-through that fails once more than `limit` bytes went through: request bodies and
 * function answers are streamed, never held whole, and still bounded.
 */
export function byteLimit(limit: number, onExceeded: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit) return done(onExceeded());
      done(null, chunk);
    },
  });
}
