import { runCli, type ServerStorage } from './server-process.ts';

/** A `larder index add` that did not succeed: the bench stops, it never fakes the index. */
export class IndexCommandError extends Error {}

/**
 * Creates the indexes with the operator's tool, `larder index add <class> <field>`, run as its
 * own process with the server's environment: score for the range query, category for the
 * count with $in (so its plan can show whether Larder's SQL can use an index at all).
 */
export async function addIndexesWithCli(storage: ServerStorage, className: string, fields: readonly string[]): Promise<string[]> {
  const outputs: string[] = [];
  for (const field of fields) {
    const args = ['index', 'add', className, field];
    const { code, output } = await runCli(storage, args);
    if (code !== 0) {
      throw new IndexCommandError(
        `'larder ${args.join(' ')}' failed (exit ${code}); the benchmark does not measure indexed queries ` +
          `without the index this command makes (src/cli/index-command.ts).\n${output.trim()}`,
      );
    }
    outputs.push(output.trim());
  }
  return outputs;
}
