import { readFileSync } from 'node:fs';

let wasmModule: Promise<WebAssembly.Module> | undefined;

/** PGlite's WebAssembly, compiled once per process: a restart of the engine's worker then costs only instantiation. */
export function pgliteWasm(): Promise<WebAssembly.Module> {
  wasmModule ??= WebAssembly.compile(readFileSync(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite'))));
  return wasmModule;
}
