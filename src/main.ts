import { readFileSync } from 'node:fs';
import { parseArgs } from './cli/args.ts';
import { CommandError } from './cli/command-error.ts';
import { helpText } from './cli/help.ts';
import { serve } from './cli/serve.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './log.ts';

/** Entry point: parse the command line, load config, run the command. */
async function main(): Promise<void> {
  // `sync` parses its own command line: there --app-id/--app-key/--master-key name the source app.
  if (process.argv[2] === 'sync') {
    const { syncCommand } = await import('./cli/sync-command.ts');
    await syncCommand(process.argv.slice(3), process.env, (line: string) => console.log(line));
    return;
  }
  // `import` parses its own command line too (--dry-run, --classes); exit 1 when records failed.
  if (process.argv[2] === 'import') {
    const { importCommand } = await import('./cli/import-command.ts');
    process.exitCode = await importCommand(process.argv.slice(3), process.env);
    return;
  }
  // `files` parses its own command line too (pull --dry-run, --concurrency ...).
  if (process.argv[2] === 'files') {
    const { filesCommand } = await import('./cli/files-command.ts');
    process.exitCode = await filesCommand(process.argv.slice(3), process.env);
    return;
  }
  // backup / restore / move take an archive path or --to <url> besides the config options.
  if (process.argv[2] === 'backup' || process.argv[2] === 'restore' || process.argv[2] === 'move') {
    const { backupCommand } = await import('./cli/backup-command.ts');
    process.exitCode = await backupCommand(process.argv[2], process.argv.slice(3), process.env, (line: string) => console.log(line));
    return;
  }
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`larder: ${(err as Error).message}\nRun 'larder --help' for usage.`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(helpText());
    return;
  }
  if (args.flags['--version']) {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    console.log(typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown');
    return;
  }
  const config = loadConfig(process.env, args.flags);
  const logger = createLogger(config.logLevel);
  const [command = 'serve', ...rest] = args.words;
  switch (command) {
    case 'serve':
      await serve(config, logger, (line) => console.log(line));
      return;
    case 'index': {
      const { indexCommand } = await import('./cli/index-command.ts');
      await indexCommand(config, rest, (line: string) => console.log(line));
      return;
    }
    case 'settings':
    case 'permissions':
    case 'default-acl': {
      const { adminCommand } = await import('./cli/admin-command.ts');
      await adminCommand(config, command, rest, (line: string) => console.log(line));
      return;
    }
    case 'engine':
    case 'schedule': {
      const { cloudCommand } = await import('./cli/cloud-command.ts');
      await cloudCommand(config, command, rest, (line: string) => console.log(line));
      return;
    }
    default:
      console.error(`larder: unknown command '${command}'. Run 'larder --help' for usage.`);
      process.exit(2);
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`larder: configuration error: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof CommandError) {
    console.error(`larder: ${err.message}`);
    process.exit(2);
  }
  console.error(`larder: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
