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
import { Worker } from 'node:worker_threads';
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

/**
 * Variants, each behind an environment variable, to see what moves the floor itself before
 * anything is ported to Larder (docs/benchmarks.md, "Files"); the defaults are the floor above.
 * - FLOOR_SMALL (bodies up to 16 MiB): `gather` (md5 per chunk on arrival, one writev after the
 *   last byte: the default until 2026-11-28 13:40 UTC); `stream` (each chunk written as it arrives, the chunks that arrive
 *   during a write gathered into the next writev, md5 per chunk on arrival: Larder's way);
 *   `stream-later` (written as they arrive, md5 only after the last byte, a chunk per turn of the
 *   event loop, overlapping the last write, the link and the fsyncs: the default, the fastest
 *   durable design measured, "Uploads against the best durable design"); `stream-thread` (written as
 *   they arrive, a copy of each chunk hashed on an md5 thread); `gather-later` (one writev after
 *   the last byte, md5 of the kept chunks while it, the link and the fsyncs run).
 * - FLOOR_DIRSYNC: `together` (default: the directory's descriptor kept open, fsynced next to the
 *   file's); `open` (opened, fsynced and closed per upload, as Larder does for its shard
 *   directory); `none` (no directory fsync: NOT durable, only to see its cost).
 * - FLOOR_BIG_MD5 (bodies over 16 MiB): `here` (default) or `thread` (as Larder: a copy of each
 *   batch hashed on the md5 thread). FLOOR_BIG_QUEUE_KB: bytes waiting before the socket is paused
 *   (default 1024).
 * - FLOOR_TRACE=1: GET /floor-trace answers the median milliseconds from the PUT's first byte to
 *   each step of the uploads since the last such GET.
 */
const SMALL = process.env.FLOOR_SMALL ?? 'stream-later';
const DIRSYNC = process.env.FLOOR_DIRSYNC ?? 'together';
const BIG_MD5 = process.env.FLOOR_BIG_MD5 ?? 'here';
const BIG_QUEUE = Number(process.env.FLOOR_BIG_QUEUE_KB ?? 1024) * 1024;
const TRACE = process.env.FLOOR_TRACE === '1';
let traces = [];

/** The md5 thread of the `thread` variants: { id, c: [chunks] } hashes, { id, end } answers the digest. */
let md5Thread;
let md5Next = 1;
const md5Waiting = new Map();
function threadMd5() {
  if (!md5Thread) {
    md5Thread = new Worker(`const { parentPort } = require('node:worker_threads'); const { createHash } = require('node:crypto'); const h = new Map();
      parentPort.on('message', (m) => { let x = h.get(m.id); if (!x) h.set(m.id, (x = createHash('md5'))); if (m.c) for (const c of m.c) x.update(c); if (m.end) { h.delete(m.id); parentPort.postMessage({ id: m.id, md5: x.digest('hex') }); } });`, { eval: true });
    md5Thread.on('message', (m) => {
      const f = md5Waiting.get(m.id);
      md5Waiting.delete(m.id);
      f(m.md5);
    });
  }
  const id = md5Next++;
  return {
    update: (chunks) => md5Thread.postMessage({ id, c: chunks }),
    digest: (f) => {
      md5Waiting.set(id, f);
      md5Thread.postMessage({ id, end: true });
    },
  };
}

/** fsync of the blobs directory, the FLOOR_DIRSYNC way. */
function syncDir(done) {
  if (DIRSYNC === 'none') return done(null);
  if (DIRSYNC === 'together') return fsync(blobsFd, done);
  open(blobs, 'r', (err, fd) => {
    if (err) return done(err);
    fsync(fd, (err) => {
      close(fd, () => {});
      done(err);
    });
  });
}

/** Hashes `chunks` into `hash` one chunk per turn of the event loop (pool callbacks run in between), then `done`. */
function hashInTurns(hash, chunks, done) {
  let i = 0;
  const step = () => {
    if (i < chunks.length) hash.update(chunks[i++]);
    if (i < chunks.length) setImmediate(step);
    else done();
  };
  step();
}

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
 * The md5 of one upload, the variant's way: `arrival` (each chunk on this thread as it arrives),
 * `later` (the chunks kept, hashed after the last byte in turns of the event loop) or `thread`
 * (a copy of each chunk posted to the md5 thread). `finish(f)` calls f(hex) once it is known.
 */
function md5Of(how) {
  if (how === 'thread') {
    const t = threadMd5();
    return { take: (c) => t.update([c]), finish: (f) => t.digest(f) };
  }
  const hash = createHash('md5');
  if (how === 'arrival') return { take: (c) => hash.update(c), finish: (f) => f(hash.digest('hex')) };
  const kept = [];
  return { take: (c) => kept.push(c), finish: (f) => hashInTurns(hash, kept, () => f(hash.digest('hex'))) };
}

/**
 * Link, then fsync of the file and the directory and the temporary name's removal together,
 * and the md5's finish next to them (`md5.finish` starts after the link is issued: with `later`
 * it hashes while the pool links and syncs); answers once all are done.
 */
function placeAndAnswer(res, fd, temp, target, size, md5, trace) {
  let digest;
  let left = 4;
  let bad = null;
  const one = (err) => {
    bad ??= err;
    if (--left > 0) return;
    close(fd, () => {});
    if (trace) {
      trace.answered = performance.now() - trace.t0;
      traces.push(trace);
    }
    if (bad) fail(res, bad);
    else answer(res, 200, { size, md5: digest });
  };
  link(temp, target, (err) => {
    if (trace) trace.linked = performance.now() - trace.t0;
    // The three calls below will not run: the md5's finish is the one left to wait for.
    if (err) {
      left -= 2;
      return one(err);
    }
    const synced = () => {
      if (trace) trace.synced = Math.max(trace.synced ?? 0, performance.now() - trace.t0);
    };
    fsync(fd, (e) => (synced(), one(e)));
    syncDir((e) => (synced(), one(e)));
    unlink(temp, one);
  });
  md5.finish((hex) => {
    digest = hex;
    if (trace) trace.hashed = performance.now() - trace.t0;
    one(null);
  });
}

/**
 * A body written while it arrives, as a Node server must for a large one to keep its memory flat
 * (and as FLOOR_SMALL=stream* does for small ones): the chunks that arrive while a write is in
 * the thread pool are written together by the next writev, the socket paused while more than
 * FLOOR_BIG_QUEUE_KB waits; then link, fsync of the file and the directory together, as below.
 * `syncEvery`: an early fdatasync every that many bytes written, never two at once
 * (FLOOR_SYNC_EVERY_MB for large bodies; none by default).
 */
function uploadStreaming(req, res, how, syncEvery) {
  const md5 = md5Of(how);
  const trace = TRACE ? { t0: performance.now() } : undefined;
  const name = randomBytes(12).toString('hex');
  const temp = join(tmp, `${name}.part`);
  const target = join(blobs, name);
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
    if (trace) trace.written = performance.now() - trace.t0;
    placeAndAnswer(res, fd, temp, target, position, md5, trace);
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
    md5.take(c);
    queued.push(c);
    queuedBytes += c.length;
    if (queuedBytes > BIG_QUEUE) req.pause();
    pump();
  });
  req.on('end', () => {
    if (trace) trace.ended = performance.now() - trace.t0;
    ended = true;
    pump();
  });
  open(temp, 'wx', (err, f) => {
    if (err) return fail(res, err);
    fd = f;
    req.resume();
  });
}

/** A small body kept whole and written by one writev after its last byte (FLOOR_SMALL=gather*). */
function uploadGathered(req, res, how) {
  const md5 = md5Of(how);
  const trace = TRACE ? { t0: performance.now() } : undefined;
  const chunks = [];
  let size = 0;
  const name = randomBytes(12).toString('hex');
  const temp = join(tmp, `${name}.part`);
  const target = join(blobs, name);
  req.on('data', (c) => {
    md5.take(c);
    size += c.length;
    chunks.push(c);
  });
  req.on('end', () => {
    if (trace) trace.ended = performance.now() - trace.t0;
    open(temp, 'wx', (err, fd) => {
      if (err) return fail(res, err);
      writeAll(fd, chunks, 0, (err) => {
        if (err) return fail(res, err);
        if (trace) trace.written = performance.now() - trace.t0;
        placeAndAnswer(res, fd, temp, target, size, md5, trace);
      });
    });
  });
}

function upload(req, res) {
  if (Number(req.headers['content-length']) > 16 * 1024 * 1024) {
    return uploadStreaming(req, res, BIG_MD5 === 'thread' ? 'thread' : 'arrival', Number(process.env.FLOOR_SYNC_EVERY_MB ?? 0) * 1024 * 1024);
  }
  switch (SMALL) {
    case 'stream': return uploadStreaming(req, res, 'arrival', 0);
    case 'stream-later': return uploadStreaming(req, res, 'later', 0);
    case 'stream-thread': return uploadStreaming(req, res, 'thread', 0);
    case 'gather-later': return uploadGathered(req, res, 'later');
    default: return uploadGathered(req, res, 'arrival');
  }
}

/** Medians of the traced uploads since the last call, in ms from the PUT's first byte. */
function traceMedians() {
  const out = { n: traces.length };
  for (const k of ['ended', 'written', 'linked', 'hashed', 'synced', 'answered']) {
    const xs = traces.map((t) => t[k]).filter((x) => x !== undefined).sort((p, q) => p - q);
    if (xs.length) out[k] = Number(xs[Math.floor(xs.length / 2)].toFixed(3));
  }
  traces = [];
  return out;
}

let next = 0;
http
  .createServer((req, res) => {
    if (req.method === 'PUT' && req.url.startsWith('/larder/upload/')) return upload(req, res);
    if (req.url === '/floor-trace') return answer(res, 200, traceMedians());
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
