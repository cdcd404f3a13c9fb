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
import { close, fsync, link, mkdirSync, open, unlink, writev } from 'node:fs';
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

function upload(req, res) {
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
