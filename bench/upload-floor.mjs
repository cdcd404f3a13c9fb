/**
 * `node bench/upload-floor.mjs <port> <directory>`: the least a Node server does to take an SDK
 * upload durably, for bench/files-ab.ts --floor. POST /1.1/fileTokens answers a made-up token and
 * upload_url (no database, no keys); PUT /larder/upload/<token> takes the body from Node's HTTP
 * server, md5s each chunk as it arrives, writes them to a new temporary file with one writev at
 * the end, links the file into place, fsyncs the file and the directory together, removes the
 * temporary name and answers; POST /1.1/fileCallback answers {}. No limits, statements, metrics
 * or error handling beyond a 500: its CPU per upload is the floor a Larder written in Node could
 * reach for the same durable work, measured next to Larder under the same load
 * (docs/benchmarks.md, "Files").
 */
import { createHash, randomBytes } from 'node:crypto';
import { close, fdatasync, fsync, link, mkdirSync, open, unlink, writev } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

const [port, dir] = process.argv.slice(2);
const tmp = join(dir, 'tmp');
const blobs = join(dir, 'blobs');
mkdirSync(tmp, { recursive: true });
mkdirSync(blobs, { recursive: true });
// UPLOAD_FLOOR_BALLAST_MB: that much of small live objects, to see what a heap of Larder's size
// changes in the collector's work per upload.
const ballast = [];
for (let i = 0; i < Number(process.env.UPLOAD_FLOOR_BALLAST_MB ?? 0) * 1024 * 1024 / 64; i++) ballast.push({ a: i, b: String(i), c: null });
globalThis.uploadFloorBallast = ballast;
let blobsFd = -1;
open(blobs, 'r', (err, fd) => {
  if (err) throw err;
  blobsFd = fd;
});

function answer(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function fail(res, err) {
  answer(res, 500, { error: String(err) });
}

/** Writes all of `chunks` at position 0 of `fd`, continuing after a short write. */
function writeAll(fd, chunks, position, done) {
  writev(fd, chunks, position, (err, n) => {
    if (err) return done(err);
    let rest = n;
    while (chunks.length && rest >= chunks[0].length) rest -= chunks.shift().length;
    if (!chunks.length) return done(null);
    if (rest > 0) chunks[0] = chunks[0].subarray(rest);
    writeAll(fd, chunks, position + n, done);
  });
}

/**
 * A large body (declared over 16 MiB) is written while it arrives, as a Node server must to keep
 * its memory flat: each chunk md5-hashed on arrival, the chunks that arrive while a write is in
 * the thread pool written together by the next writev, the socket paused while more than 1 MiB
 * waits; then link, fsync of the file and the directory together, as below. No early fdatasync
 * (FLOOR_SYNC_EVERY_MB=N adds one every N MiB written, never two at once).
 */
function uploadStreaming(req, res) {
  const hash = createHash('md5');
  const name = randomBytes(12).toString('hex');
  const temp = join(tmp, `${name}.part`);
  const target = join(blobs, name);
  const syncEvery = Number(process.env.FLOOR_SYNC_EVERY_MB ?? 0) * 1024 * 1024;
  let queued = [];
  let queuedBytes = 0;
  let position = 0;
  let syncedTo = 0;
  let syncing = false;
  let writing = false;
  let ended = false;
  let failed = null;
  let fd = -1;
  req.pause();
  const finish = () => {
    if (syncing) return;
    link(temp, target, (err) => {
      if (err) return fail(res, err);
      let left = 3;
      let bad = null;
      const one = (err) => {
        bad ??= err;
        if (--left > 0) return;
        close(fd, () => {});
        if (bad) fail(res, bad);
        else answer(res, 200, { size: position, md5: hash.digest('hex') });
      };
      fsync(fd, one);
      fsync(blobsFd, one);
      unlink(temp, one);
    });
  };
  const pump = () => {
    if (writing || failed) return;
    if (!queued.length) {
      if (ended) finish();
      return;
    }
    const chunks = queued;
    const bytes = queuedBytes;
    queued = [];
    queuedBytes = 0;
    writing = true;
    if (req.isPaused() && !ended) req.resume();
    writeAll(fd, chunks, position, (err) => {
      writing = false;
      if (err) {
        failed = err;
        return fail(res, err);
      }
      position += bytes;
      if (syncEvery && !syncing && position - syncedTo >= syncEvery) {
        syncing = true;
        syncedTo = position;
        fdatasync(fd, () => {
          syncing = false;
          if (ended && !writing && !queued.length) finish();
        });
      }
      pump();
    });
  };
  req.on('data', (c) => {
    hash.update(c);
    queued.push(c);
    queuedBytes += c.length;
    if (queuedBytes > 1024 * 1024) req.pause();
    pump();
  });
  req.on('end', () => {
    ended = true;
    pump();
  });
  open(temp, 'wx', (err, f) => {
    if (err) return fail(res, err);
    fd = f;
    req.resume();
  });
}

function upload(req, res) {
  if (Number(req.headers['content-length']) > 16 * 1024 * 1024) return uploadStreaming(req, res);
  const hash = createHash('md5');
  const chunks = [];
  let size = 0;
  const name = randomBytes(12).toString('hex');
  const temp = join(tmp, `${name}.part`);
  const target = join(blobs, name);
  req.on('data', (c) => {
    hash.update(c);
    size += c.length;
    chunks.push(c);
  });
  req.on('end', () => {
    open(temp, 'wx', (err, fd) => {
      if (err) return fail(res, err);
      writeAll(fd, chunks, 0, (err) => {
        if (err) return fail(res, err);
        link(temp, target, (err) => {
          if (err) return fail(res, err);
          let left = 3;
          let failed = null;
          const one = (err) => {
            failed ??= err;
            if (--left > 0) return;
            close(fd, () => {});
            if (failed) fail(res, failed);
            else answer(res, 200, { size, md5: hash.digest('hex') });
          };
          fsync(fd, one);
          fsync(blobsFd, one);
          unlink(temp, one);
        });
      });
    });
  });
}

let next = 0;
http
  .createServer((req, res) => {
    if (req.method === 'PUT' && req.url.startsWith('/larder/upload/')) return upload(req, res);
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      if (req.url === '/1.1/fileTokens') {
        const token = randomBytes(24).toString('hex');
        const objectId = (next++).toString(36).padStart(8, '0');
        const base = `http://${req.headers.host}`;
        return answer(res, 200, { objectId, token, upload_url: `${base}/larder/upload/${token}`, url: `${base}/files/${objectId}`, provider: 'larder' });
      }
      answer(res, 200, {});
    });
  })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
