import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sql } from '../sql/fragment.ts';
import type { Database } from './database.ts';
import { translateDriverError } from './driver-errors.ts';
import { PgliteHost, type PgliteHostOptions } from './pglite-host.ts';
import { statementName } from './prepared-statements.ts';
import { isHeavy } from './heavy-lane.ts';

/** Options for the embedded engine. `dataDir` undefined means a temporary database (tests). */
export interface PgliteOptions {
  dataDir?: string;
  schema: string;
  /** Longest any statement may run, ms: the same limit as PostgreSQL's statement_timeout. */
  statementTimeoutMs: number;
  /** Longest one statement may hold the engine while other requests wait, ms. */
  sliceMs: number;
  /** Told about each cancelled statement (logging). */
  onCancel?: PgliteHostOptions['onCancel'];
  /** Told about each table's upkeep (pglite-upkeep.ts), for the debug log. */
  onUpkeep?: PgliteHostOptions['onUpkeep'];
}

async function run<R>(work: Promise<Record<string, unknown>[]>): Promise<R[]> {
  try {
    return (await work) as R[];
  } catch (err) {
    throw translateDriverError(err);
  }
}

/**
 * Opens PGlite (PostgreSQL compiled to WASM) in a worker thread (pglite-host.ts): statements are
 * bounded and cancellable, and never block the event loop. A temporary database lives in a
 * temporary directory rather than in memory, because a cancelled statement's worker is replaced
 * and its data must outlive it; the directory is removed on close.
 */
export async function openPglite(opts: PgliteOptions): Promise<Database> {
  const temporary = opts.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'larder-pglite-')) : undefined;
  const host = new PgliteHost({
    dataDir: opts.dataDir ?? (temporary as string),
    schema: opts.schema,
    statementTimeoutMs: opts.statementTimeoutMs,
    sliceMs: opts.sliceMs,
    onCancel: opts.onCancel,
    onUpkeep: opts.onUpkeep,
  });
  try {
    await host.start();
  } catch (err) {
    if (temporary) rmSync(temporary, { recursive: true, force: true });
    throw err;
  }
  const query = <R>(statement: Sql): Promise<R[]> => {
    const { text, values } = statement.toQuery();
    return run<R>(host.query(text, values, statementName(statement, text) !== undefined, isHeavy(statement)));
  };
  return {
    engine: 'pglite',
    schema: opts.schema,
    query,
    transaction<T>(work: (tx: { query<R>(s: Sql): Promise<R[]> }) => Promise<T>): Promise<T> {
      return host.transaction((q) =>
        work({
          query: <R>(s: Sql) => {
            const { text, values } = s.toQuery();
            return run<R>(q(text, values, statementName(s, text) !== undefined));
          },
        }),
      );
    },
    exec: (text) => run(host.exec(text).then(() => [])).then(() => undefined),
    ping: () => host.ping(),
    listen: (channel, onMessage, onReset) => host.listen(channel, onMessage, onReset),
    async close() {
      await host.close();
      if (temporary) rmSync(temporary, { recursive: true, force: true });
    },
  };
}
