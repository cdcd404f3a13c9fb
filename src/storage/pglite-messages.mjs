// The protocol messages the embedded engine's thread (pglite-worker.mjs) sends PGlite for one
// statement, concatenated into the one buffer PGlite reads in one call (execProtocolRawStream).
// bench/upload-statement-cost.mjs sends its statements through the same functions, so what it
// measures is what the worker sends. Plain JavaScript, like the worker that imports it (a worker
// thread has no TypeScript loader).
import { createRequire } from 'node:module';
import { protocol } from '@electric-sql/pglite';

// Parameters of statements are encoded the way node-postgres encodes them for the PostgreSQL
// engine (the same statements run there), so both engines receive the same text.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils');
const S = protocol.serialize;

/** Concatenates protocol messages into the one buffer PGlite reads in one call. */
export function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of parts) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/**
 * The named statement `name` run once: Parse (only when `text` is given, its first use), Bind,
 * Describe, Execute, Sync.
 * @param {string} name @param {string | undefined} text @param {unknown[]} values
 */
export function namedStatement(name, text, values) {
  const parts = text === undefined ? [] : [S.parse({ name, text })];
  parts.push(S.bind({ statement: name, values: values.map((v) => prepareValue(v)) }), S.describe({ type: 'P' }), S.execute({}), S.sync());
  return concat(parts);
}

/** @param {string} text @param {unknown[]} values The unnamed statement: Parse, Bind, Describe, Execute, Sync. */
export function unnamedStatement(text, values) {
  return concat([S.parse({ text }), S.bind({ values: values.map((v) => prepareValue(v)) }), S.describe({ type: 'P' }), S.execute({}), S.sync()]);
}

/** @param {string} name Closes the named statement `name` (then Sync). */
export function closeStatement(name) {
  return concat([S.close({ type: 'S', name }), S.sync()]);
}
