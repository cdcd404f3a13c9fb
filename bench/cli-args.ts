/** The flags of the hand-run bench scripts (`--name value`), read from process.argv. */

/** The value after `name` on the command line, or `fallback` when it is absent or last. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** The flag `name`'s `K=V,K=V` as an environment object (empty when absent). */
export function envArg(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of arg(name, '').split(',').filter(Boolean)) {
    const i = kv.indexOf('=');
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}
