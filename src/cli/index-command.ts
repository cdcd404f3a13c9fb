import type { Config } from '../config.ts';
import { ClassRegistry } from '../schema/class-registry.ts';
import { resolve } from 'node:path';
import { addIndex, dropIndex, listIndexes, type AddIndexResult, type IndexDeps, type IndexRecord, type ListedIndex } from '../admin/indexes.ts';
import { adminRequest, findRunningServer, type RunningServer } from './running-server.ts';
import { CommandError } from './command-error.ts';
import { withCommandDatabase } from './command-database.ts';

const USAGE = 'usage: larder index add <class> <field> | larder index list [<class>] | larder index drop <class> <field>';

/** A parsed `larder index` command line. */
type IndexCommand = { kind: 'add' | 'drop'; className: string; field: string } | { kind: 'list'; className?: string };

/** Parses the words after `index`; mistakes are CommandErrors, found before any I/O. */
export function parseIndexArgs(args: readonly string[]): IndexCommand {
  const [sub, ...rest] = args;
  if (sub === 'add' || sub === 'drop') {
    if (rest.length !== 2) throw new CommandError(`'index ${sub}' takes a class and a field.\n${USAGE}`);
    return { kind: sub, className: rest[0], field: rest[1] };
  }
  if (sub === 'list') {
    if (rest.length > 1) throw new CommandError(`'index list' takes at most a class.\n${USAGE}`);
    return rest.length ? { kind: 'list', className: rest[0] } : { kind: 'list' };
  }
  throw new CommandError(sub === undefined ? USAGE : `unknown index command '${sub}'.\n${USAGE}`);
}

/** Where the index use-cases run: in this process, or on the server holding the data directory. */
interface IndexBackend {
  add(className: string, field: string): Promise<AddIndexResult>;
  drop(className: string, field: string): Promise<IndexRecord>;
  list(className?: string): Promise<ListedIndex[]>;
}

function localBackend(deps: IndexDeps): IndexBackend {
  return { add: (c, f) => addIndex(deps, c, f), drop: (c, f) => dropIndex(deps, c, f), list: (c) => listIndexes(deps, c) };
}

function remoteBackend(server: RunningServer): IndexBackend {
  const cls = (c: string) => `/1.1/larder/classes/${encodeURIComponent(c)}/indexes`;
  return {
    add: async (c, f) => (await adminRequest(server, 'POST', cls(c), { field: f })) as AddIndexResult,
    drop: async (c, f) => (await adminRequest(server, 'DELETE', `${cls(c)}/${encodeURIComponent(f)}`)) as IndexRecord,
    list: async (c) => ((await adminRequest(server, 'GET', c === undefined ? '/1.1/larder/indexes' : `/1.1/larder/indexes?className=${encodeURIComponent(c)}`)) as { results: ListedIndex[] }).results,
  };
}

async function run(backend: IndexBackend, cmd: IndexCommand, print: (line: string) => void): Promise<void> {
  switch (cmd.kind) {
    case 'add': {
      const { className, field } = cmd;
      const res = await backend.add(className, field);
      if (res.outcome === 'builtIn') print(`${className}.${field} is indexed by every class table already (index ${res.index.name}).`);
      else if (res.outcome === 'exists') print(`Index ${res.index.name} on ${className}.${field} already exists.`);
      else print(`Created index ${res.index.name} on ${className}.${field} (${res.index.type}): ${res.index.using} (${res.index.columns})`);
      return;
    }
    case 'drop': {
      const dropped = await backend.drop(cmd.className, cmd.field);
      print(`Dropped index ${dropped.name} on ${cmd.className}.${cmd.field}.`);
      return;
    }
    case 'list': {
      const list = await backend.list(cmd.className);
      if (!list.length) print(cmd.className ? `No indexes made with 'index add' on ${cmd.className}.` : `No indexes made with 'index add'.`);
      for (const i of list) print(`${i.className}.${i.field}\t${i.name}\t${i.type}\t${i.using} (${i.columns})\t${i.state}`);
      return;
    }
  }
}

/**
 * `larder index add|list|drop`: opens the configured database (migrating it, and taking the
 * data-directory lock on the embedded engine), runs the index use-case and prints the outcome.
 * While a server holds the embedded data directory, the command goes to its admin API instead.
 * A mistake (unknown class or field, a field type that cannot be indexed) is a CommandError:
 * main prints it and exits 2.
 */
export async function indexCommand(config: Config, args: string[], print: (line: string) => void): Promise<void> {
  const cmd = parseIndexArgs(args);
  const running = config.databaseUrl ? undefined : findRunningServer(resolve(config.dataDir));
  if (running) return run(remoteBackend(running), cmd, print);
  // No statement timeout: building an index on a large table takes as long as it takes.
  await withCommandDatabase({ ...config, statementTimeoutMs: 0, poolSize: 2 }, (db) => run(localBackend({ db, classes: new ClassRegistry(db) }), cmd, print));
}
