// The protocol messages the embedded engine's thread (pglite-worker.mjs) sends PGlite for one
// statement, concatenated into the one buffer PGlite reads in one call (execProtocolRawStream).
// bench/upload-statement-cost.mjs sends its statements through the same functions, so what it
// measures is what the worker sends. Plain JavaScript, like the worker that imports it (a worker
// thread has no TypeScript loader).
//
// Parse, Bind, Describe, Execute and Sync are written straight into one reused buffer: PGlite's
// serializer (protocol.serialize, pg-protocol's Writer) gives every message a buffer of its own
// (private fields behind WeakMaps, a new 256-byte buffer after each message) and they were then
// copied once more into one; 12-25 us per statement in a loop against 2-4 us this way
// (docs/benchmarks.md, "Files"). The bytes are the same (pglite-messages.test.ts).
import { createRequire } from 'node:module';
import { protocol } from '@electric-sql/pglite';

// Parameters of statements are encoded the way node-postgres encodes them for the PostgreSQL
// engine (the same statements run there), so both engines receive the same text.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils');
const S = protocol.serialize;

/** Reused for every statement; grown when one needs more, never shrunk below START_BYTES. */
const START_BYTES = 16 * 1024;
let buf = Buffer.allocUnsafe(START_BYTES);
let at = 0;

/** Makes room for `n` more bytes. */
function room(n) {
  if (at + n <= buf.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, at + n));
  buf.copy(bigger, 0, 0, at);
  buf = bigger;
}

function cString(s) {
  const n = Buffer.byteLength(s);
  room(n + 1);
  buf.write(s, at, n, 'utf8');
  at += n;
  buf[at++] = 0;
}

function int16(v) {
  room(2);
  buf.writeUInt16BE(v, at);
  at += 2;
}

function int32(v) {
  room(4);
  buf.writeInt32BE(v, at);
  at += 4;
}

/** Starts message `code`; returns where its length goes (filled in by end). */
function begin(code) {
  room(5);
  buf[at] = code;
  const lengthAt = at + 1;
  at += 5;
  return lengthAt;
}

function end(lengthAt) {
  buf.writeInt32BE(at - lengthAt, lengthAt);
}

/** Parse of statement `name` (empty: the unnamed statement), no parameter types given. */
function parse(name, text) {
  const l = begin(0x50);
  cString(name);
  cString(text);
  int16(0);
  end(l);
}

/**
 * Bind of the unnamed portal to statement `name`, as PGlite's serializer writes it: one format
 * code per value (binary for bytes, text for the rest), the values, and no result format codes
 * (all text).
 */
function bind(name, values) {
  const l = begin(0x42);
  cString('');
  cString(name);
  const count = values.length;
  const prepared = new Array(count);
  int16(count);
  for (let i = 0; i < count; i++) {
    const v = prepareValue(values[i]);
    prepared[i] = v;
    int16(v !== null && (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) ? 1 : 0);
  }
  int16(count);
  for (const v of prepared) {
    if (v === null) {
      int32(-1);
    } else if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) {
      const bytes = v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      int32(bytes.length);
      room(bytes.length);
      buf.set(bytes, at);
      at += bytes.length;
    } else {
      const s = String(v);
      const n = Buffer.byteLength(s);
      int32(n);
      room(n);
      buf.write(s, at, n, 'utf8');
      at += n;
    }
  }
  int16(0);
  end(l);
}

/** Describe of the unnamed portal, Execute of all its rows, Sync. */
function describeExecuteSync() {
  room(6 + 10 + 5);
  buf.set(TAIL, at);
  at += TAIL.length;
}
const TAIL = Buffer.from([0x44, 0, 0, 0, 6, 0x50, 0, 0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);

/** A copy of what was written, for PGlite to read. */
function take() {
  const out = new Uint8Array(at);
  out.set(buf.subarray(0, at));
  at = 0;
  if (buf.length > 4 * START_BYTES * 64) buf = Buffer.allocUnsafe(START_BYTES);
  return out;
}

/**
 * The named statement `name` run once: Parse (only when `text` is given, its first use), Bind,
 * Describe, Execute, Sync.
 * @param {string} name @param {string | undefined} text @param {unknown[]} values
 */
export function namedStatement(name, text, values) {
  at = 0;
  if (text !== undefined) parse(name, text);
  bind(name, values);
  describeExecuteSync();
  return take();
}

/** @param {string} text @param {unknown[]} values The unnamed statement: Parse, Bind, Describe, Execute, Sync. */
export function unnamedStatement(text, values) {
  at = 0;
  parse('', text);
  bind('', values);
  describeExecuteSync();
  return take();
}

/** @param {string} name Closes the named statement `name` (then Sync). */
export function closeStatement(name) {
  const close = S.close({ type: 'S', name });
  const sync = S.sync();
  const out = new Uint8Array(close.length + sync.length);
  out.set(close, 0);
  out.set(sync, close.length);
  return out;
}
