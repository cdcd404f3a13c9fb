import type { CancelReason } from './pglite-running.ts';
import type { UpkeepDone } from './pglite-upkeep.ts';

/** What the host needs. */
export interface PgliteHostOptions {
  dataDir: string;
  schema: string;
  /** Longest any statement may run, ms (PostgreSQL's statement_timeout); 0: unbounded. */
  statementTimeoutMs: number;
  /** Longest a statement may hold the engine while other work waits for it, ms; 0: no slice. */
  sliceMs: number;
  /** Told about each cancellation (for the log). */
  onCancel?: (info: { reason: CancelReason; ranMs: number }) => void;
  /** Told about each table's upkeep (pglite-upkeep.ts), for the debug log. */
  onUpkeep?: (done: UpkeepDone) => void;
}
