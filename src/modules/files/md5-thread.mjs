// The md5 thread of large uploads (off-thread-md5.ts): plain JavaScript, loaded as a worker by
// path (copied to dist/ as is). Messages, in the order the main thread sent them:
// { id, chunks } hashes the chunks into upload `id` and answers { id, hashed: bytes };
// { id, end: true } answers { id, md5 } (hex) and forgets the upload; { id, drop: true } forgets it.
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.chunks) {
    let hash = hashes.get(m.id);
    if (!hash) hashes.set(m.id, (hash = createHash('md5')));
    let bytes = 0;
    for (const c of m.chunks) {
      hash.update(c);
      bytes += c.byteLength;
    }
    parentPort.postMessage({ id: m.id, hashed: bytes });
  } else if (m.end) {
    const hash = hashes.get(m.id) ?? createHash('md5');
    hashes.delete(m.id);
    parentPort.postMessage({ id: m.id, md5: hash.digest('hex') });
  } else if (m.drop) {
    hashes.delete(m.id);
  }
});
