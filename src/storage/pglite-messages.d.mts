// Types of pglite-messages.mjs (plain JavaScript: the embedded engine's worker thread imports it).

/** The named statement `name` run once: Parse (only when `text` is given, its first use), Bind, Describe, Execute, Sync. */
export function namedStatement(name: string, text: string | undefined, values: unknown[]): Uint8Array;
/** The unnamed statement: Parse, Bind, Describe, Execute, Sync. */
export function unnamedStatement(text: string, values: unknown[]): Uint8Array;
/** Closes the named statement `name` (then Sync). */
export function closeStatement(name: string): Uint8Array;
