/** Longest a stop may take before the process exits anyway (the rest of the stop is logged). */
export const SHUTDOWN_DEADLINE_MS = 20_000;
