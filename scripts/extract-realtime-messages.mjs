#!/usr/bin/env node
/**
 * Reads the GenericCommand message definitions that the npm package `leancloud-realtime` ships
 * (the descriptor its bundled core hands to protobufjs 5's builder) and writes them as a
 * protobufjs JSON namespace to src/modules/livequery/protocol/realtime-messages.json, which the
 * LiveQuery server loads with protobufjs at run time. Run it again after upgrading the SDK;
 * protocol/realtime-messages.test.ts fails while the two disagree.
 *
 * Usage: node scripts/extract-realtime-messages.mjs [--check]
 */
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const OUT = fileURLToPath(new URL('../src/modules/livequery/protocol/realtime-messages.json', import.meta.url));

/** The descriptor `leancloud-realtime/core` imports into protobufjs, captured on its way. */
export function captureDescriptor() {
  const Module = require('node:module');
  const original = Module._load;
  let captured;
  Module._load = function load(request, ...rest) {
    const loaded = original.call(this, request, ...rest);
    if (request !== 'protobufjs/dist/protobuf-light') return loaded;
    return {
      ...loaded,
      newBuilder(options) {
        const builder = loaded.newBuilder(options);
        const importer = builder.import.bind(builder);
        builder.import = (descriptor, ...more) => {
          captured ??= descriptor;
          return importer(descriptor, ...more);
        };
        return builder;
      },
    };
  };
  try {
    const path = require.resolve('leancloud-realtime/core');
    delete require.cache[path];
    require(path);
  } finally {
    Module._load = original;
  }
  if (!captured) throw new Error('leancloud-realtime/core did not import a protobuf descriptor');
  return captured;
}

function enumOf(e) {
  return { values: Object.fromEntries(e.values.map((v) => [v.name, v.id])) };
}

/** protobufjs reads a JSON type as proto3 unless told: these messages are proto2 (field presence). */
function typeOf(m, syntax) {
  const fields = {};
  for (const f of m.fields) {
    const field = { type: f.type, id: f.id };
    if (f.rule === 'repeated' || f.rule === 'required') field.rule = f.rule;
    if (f.options && Object.keys(f.options).length) field.options = f.options;
    fields[f.name] = field;
  }
  const out = { edition: syntax, fields };
  if (m.enums?.length) out.nested = Object.fromEntries(m.enums.map((e) => [e.name, enumOf(e)]));
  return out;
}

/** The protobufjs (6+) JSON namespace of a protobufjs 5 descriptor. */
export function toNamespace(d) {
  const nested = {};
  for (const m of d.messages) nested[m.name] = typeOf(m, m.syntax ?? d.syntax);
  for (const e of d.enums ?? []) nested[e.name] = enumOf(e);
  let root = { nested };
  for (const part of d.package.split('.').reverse()) root = { nested: { [part]: root } };
  const { version } = require('leancloud-realtime/package.json');
  return { source: `leancloud-realtime@${version} (MIT), ${d.syntax}`, ...root };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = `${JSON.stringify(toNamespace(captureDescriptor()), null, 1)}\n`;
  if (process.argv.includes('--check')) {
    if (readFileSync(OUT, 'utf8') !== text) {
      console.error(`${OUT} is out of date: run node scripts/extract-realtime-messages.mjs`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
    console.log(`wrote ${OUT}`);
  }
}
