/**
 * Errors a module contributes (friends, LiveQuery...). The core catalogue (error-codes.ts) holds
 * only the core's own errors; a module declares its entries once with `defineErrors` (through
 * src/module-api/errors.ts) and throws them with the function it gets back. Every declared entry
 * is listed here for docs/errors.md (kept in sync by test/docs/errors-doc.test.ts).
 */
import { ERRORS, type ErrorSpec } from './error-codes.ts';
import { ApiError } from './api-error.ts';

/** A module error: a catalogue entry that carries its own name. */
export interface NamedErrorSpec extends ErrorSpec {
  readonly name: string;
  readonly owner: string;
}

// A code-level catalogue (like ERRORS), not per-app state: the same for every app of the process.
const declared = new Map<string, NamedErrorSpec>();

/** One declared error: `[code, HTTP status, default message]`, as the catalogue rows read. */
export type ErrorRow = readonly [code: number, status: number, message: string];

/** Throws-ready constructor of a module's errors, typed by the names the module declared. */
export type ErrorFactory<N extends string> = (name: N, message?: string) => ApiError;

/**
 * Declares a module's errors. Names are global (one docs table): a name the core or another
 * module already uses is refused, so two owners never disagree about one name.
 */
export function defineErrors<N extends string>(owner: string, rows: Readonly<Record<N, ErrorRow>>): ErrorFactory<N> {
  const entries = new Map<string, NamedErrorSpec>();
  for (const [name, [code, status, message]] of Object.entries(rows) as [N, ErrorRow][]) {
    const known = declared.get(name);
    if (name in ERRORS || (known && known.owner !== owner)) throw new Error(`error name ${name} of module ${owner} is already taken`);
    const entry: NamedErrorSpec = { code, status, message, name, owner };
    declared.set(name, entry);
    entries.set(name, entry);
  }
  return (name, message) => {
    const entry = entries.get(name);
    if (!entry) throw new Error(`module ${owner} declared no error ${name}`);
    return new ApiError(entry, message);
  };
}

/** Every module error declared so far (the modules this process imported). */
export function moduleErrors(): readonly NamedErrorSpec[] {
  return [...declared.values()];
}
