/**
 * One statement with parameters over a node-postgres connection, as a Submittable (the interface
 * pg-cursor uses) instead of node-postgres's Query (issue 16). Per statement, pg's Query copies
 * its config through property descriptors, builds an EventEmitter and a Result, and asks the
 * server to describe the result, whose RowDescription it parses and turns into a row template
 * and parsers again each time. This sends the same Parse (when new on the connection), Bind,
 * Execute and Sync, and builds the same row objects with the same type parsers (pg.types, so
 * postgres.ts's settings apply), but:
 *
 * - a named (prepared) statement is described on its connection once: the result's column
 *   names and parsers are kept per connection and statement name, and later executions go
 *   without Describe, so PostgreSQL sends no RowDescription. A statement name stands for one
 *   text for the process's life (prepared-statements.ts), and a prepared statement whose result
 *   type changed (a table altered under it) fails in PostgreSQL ("cached plan must not change
 *   result type") rather than answering other columns; the row's width is checked too;
 * - no EventEmitter, Result or config copy per statement.
 *
 * Errors and the connection's bookkeeping of its prepared statements are handled as pg's Query
 * does (node_modules/pg/lib/query.js, client.js): the callback gets the server's error at once
 * (once only), and pg's client records a named statement as parsed on ParseComplete and forgets
 * it when its statement fails.
 */
import { createRequire } from 'node:module';
import pg from 'pg';

/** node-postgres's encoding of a parameter (what its Query uses). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };

type Parser = (text: string) => unknown;

/** A result's columns: names and the text parser of each. */
interface Columns {
  readonly names: readonly string[];
  readonly parsers: readonly Parser[];
}

/** A column of a RowDescription message (pg-protocol). */
interface FieldMessage {
  name: string;
  dataTypeID: number;
}

/** The part of node-postgres's Connection a statement uses (pg/lib/connection.js). */
interface Wire {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
  parse(m: { text: string; name: string }): void;
  bind(m: { portal: string; statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string }): void;
  sync(): void;
}

/** Columns of each connection's named statements, once described there. */
const described = new WeakMap<Wire, Map<string, Columns>>();

/** What the statement's callback gets: the rows, or the error. */
export type RowsCallback = (err: Error | null, rows?: Record<string, unknown>[]) => void;

/**
 * A statement run through node-postgres's client queue (`client.query(statement)`), answering
 * its rows as objects keyed by column name. Only for the extended protocol: a statement with a
 * name or with parameters (pg's Query sends the others as simple queries).
 */
export class PgStatement {
  /** Read by pg's client: a named statement's name and text (ParseComplete, errors). */
  readonly name: string | undefined;
  readonly text: string;
  /** Set by pg's client (or pg-pool) when the statement is queued. */
  callback: RowsCallback | undefined;
  private readonly values: unknown[];
  private columns: Columns | undefined;
  private rows: Record<string, unknown>[] = [];
  private failed: Error | undefined;
  private wire: Wire | undefined;
  private answered = false;

  constructor(name: string | undefined, text: string, values: unknown[]) {
    this.name = name;
    this.text = text;
    this.values = values;
  }

  /** Sends the statement (pg's client calls it when the connection is free). */
  submit(connection: unknown): Error | null {
    const wire = connection as Wire;
    this.wire = wire;
    const name = this.name;
    if (name !== undefined) {
      const previous = wire.parsedStatements[name] ?? wire.submittedNamedStatements[name];
      if (previous !== undefined && previous !== this.text) return new Error(`Prepared statements must be unique - '${name}' was used for a different statement`);
      this.columns = described.get(wire)?.get(name);
    }
    wire.stream.cork?.();
    try {
      this.send(wire, name);
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  private send(wire: Wire, name: string | undefined): void {
    const statement = name ?? '';
    if (name === undefined || (wire.parsedStatements[name] === undefined && wire.submittedNamedStatements[name] === undefined)) {
      wire.parse({ text: this.text, name: statement });
      if (name !== undefined) wire.submittedNamedStatements[name] = this.text;
    }
    try {
      wire.bind({ portal: '', statement, values: this.values, valueMapper: prepareValue });
    } catch (err) {
      // A parameter pg cannot encode (a circular object): the statement fails, the connection
      // stays in step (a Parse just sent completes and is recorded as pg's Query would record
      // it; unlike pg's Query, a statement parsed earlier is not closed behind the client's
      // record of it).
      wire.sync();
      this.handleError(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (this.columns === undefined) wire.describe({ type: 'P', name: '' });
    wire.execute({ portal: '' });
    wire.sync();
  }

  handleRowDescription(msg: { fields: FieldMessage[] }): void {
    const names = msg.fields.map((f) => f.name);
    const parsers = msg.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, 'text') as Parser);
    this.columns = { names, parsers };
    if (this.name !== undefined && this.wire !== undefined) {
      let byName = described.get(this.wire);
      if (!byName) described.set(this.wire, (byName = new Map()));
      byName.set(this.name, this.columns);
    }
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.failed) return;
    const cols = this.columns;
    const fields = msg.fields;
    if (cols === undefined || fields.length !== cols.names.length) {
      this.failed = new Error(`A row of ${fields.length} columns came for a statement of ${cols?.names.length ?? 'no known'} columns`);
      return;
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const v = fields[i];
      try {
        row[cols.names[i]] = v === null ? null : cols.parsers[i](v);
      } catch (err) {
        // As pg's Query: a value its parser refuses fails the statement once it has finished.
        this.failed = err instanceof Error ? err : new Error(String(err));
        return;
      }
    }
    this.rows.push(row);
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleError(err: Error): void {
    this.failed = undefined;
    this.finish(err);
  }

  handleReadyForQuery(): void {
    if (this.failed) return this.handleError(this.failed);
    this.finish(null, this.rows);
  }

  /** Answers the callback once (after a bind failure the Sync's ReadyForQuery still comes). */
  private finish(err: Error | null, rows?: Record<string, unknown>[]): void {
    if (this.answered) return;
    this.answered = true;
    this.callback?.(err, rows);
  }

  handleCopyInResponse(connection: unknown): void {
    (connection as { sendCopyFail(m: string): void }).sendCopyFail('No source stream defined');
  }

  handleCopyData(): void {}
}
