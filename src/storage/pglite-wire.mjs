// What the embedded engine's thread (pglite-worker.mjs) reads back from PGlite: the bytes of
// PostgreSQL's wire protocol that one call into the engine wrote, decoded straight into rows.
// PGlite's own path (execProtocol + parse.parseResults) first turns every message into an object
// (copying the output three times on the way: each chunk, the whole buffer, each field), then
// builds the rows from those objects; under load that JavaScript cost as much CPU as PostgreSQL's
// own work on a get by id (docs/benchmarks.md, "PGlite: decoding the wire in the worker").
// The rows are what parse.parseResults(...)[0].rows gives: the first result's rows, each column
// by name (a later duplicate name wins), values through PGlite's parseType with the same parsers.
// Plain JavaScript, like the worker that imports it (a worker thread has no TypeScript loader).
import { types } from '@electric-sql/pglite';

/** The reused buffer's size; one grown past KEEP_BYTES for a large answer is dropped after it. */
const START_BYTES = 64 * 1024;
const KEEP_BYTES = 4 * 1024 * 1024;
/** Reused from one answer to the next: one copy of the engine's output, no more. */
let out = Buffer.allocUnsafe(START_BYTES);
let used = 0;

/** PGlite's onRawData: `chunk` is a view of the engine's memory, valid only during the call. */
export function collect(chunk) {
  if (used + chunk.length > out.length) {
    const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, used + chunk.length));
    out.copy(bigger, 0, 0, used);
    out = bigger;
  }
  out.set(chunk, used);
  used += chunk.length;
}

/** Starts collecting one call's output. */
export function reset() {
  used = 0;
}

/** ErrorResponse field codes, named as PGlite's (and node-postgres') DatabaseError names them. */
const ERROR_FIELDS = {
  S: 'severity', V: undefined, C: 'code', D: 'detail', H: 'hint', P: 'position', p: 'internalPosition', q: 'internalQuery',
  W: 'where', s: 'schema', t: 'table', c: 'column', d: 'dataType', n: 'constraint', F: 'file', L: 'line', R: 'routine',
};

function cString(at, end) {
  let z = at;
  while (z < end && out[z] !== 0) z++;
  return [out.toString('utf8', at, z), z + 1];
}

/** An ErrorResponse as the plain fields of PGlite's DatabaseError (what errorOf sends the host). */
function errorAt(at, end, length) {
  const err = { message: '', length, name: 'error' };
  while (at < end && out[at] !== 0) {
    const code = String.fromCharCode(out[at]);
    const [value, next] = cString(at + 1, end);
    if (code === 'M') err.message = value;
    else if (ERROR_FIELDS[code]) err[ERROR_FIELDS[code]] = value;
    at = next;
  }
  return err;
}

/**
 * Decodes what was collected since reset(). Returns the first result's rows; throws the first
 * ErrorResponse (as an Error with its fields); `onNotify(channel, payload)` gets each
 * NotificationResponse, as PGlite's listeners would.
 * @param {Record<number, (v: string, oid: number) => unknown>} parsers PGlite's db.parsers
 * @param {(channel: string, payload: string) => void} onNotify
 */
export function decode(parsers, onNotify) {
  const end = used;
  let at = 0;
  let names;
  let oids;
  let rows = [];
  let done = false;
  let error;
  while (at + 5 <= end) {
    const type = out[at];
    const length = out.readInt32BE(at + 1);
    const body = at + 5;
    const next = at + 1 + length;
    if (error === undefined) {
      switch (type) {
        case 0x54: {
          // RowDescription: name, table oid, column number, type oid, type size, modifier, format.
          const n = out.readInt16BE(body);
          names = new Array(n);
          oids = new Array(n);
          let p = body + 2;
          for (let i = 0; i < n; i++) {
            const [name, q] = cString(p, next);
            names[i] = name;
            oids[i] = out.readInt32BE(q + 6);
            p = q + 18;
          }
          break;
        }
        case 0x44: {
          // DataRow: a length (-1: NULL) and the text of each column.
          if (done || names === undefined) break;
          const n = out.readInt16BE(body);
          const row = {};
          let p = body + 2;
          for (let i = 0; i < n; i++) {
            const len = out.readInt32BE(p);
            p += 4;
            if (len < 0) row[names[i]] = null;
            else {
              row[names[i]] = types.parseType(out.toString('utf8', p, p + len), oids[i], parsers);
              p += len;
            }
          }
          rows.push(row);
          break;
        }
        case 0x43:
          // CommandComplete: the first result is the one returned (parseResults(...)[0]).
          done = true;
          names = undefined;
          break;
        case 0x45:
          error = errorAt(body, next, length);
          break;
        case 0x41: {
          // NotificationResponse: process id, channel, payload.
          const [channel, q] = cString(body + 4, next);
          const [payload] = cString(q, next);
          onNotify(channel, payload);
          break;
        }
        default:
          // ParseComplete, BindComplete, CloseComplete, NoData, ParameterStatus, NoticeResponse,
          // ReadyForQuery...: nothing to read.
          break;
      }
    }
    at = next;
  }
  used = 0;
  if (out.length > KEEP_BYTES) out = Buffer.allocUnsafe(START_BYTES);
  if (error) throw Object.assign(new Error(error.message), error);
  return rows;
}
