import { readFileSync } from 'node:fs';
import { parseArgs } from './cli/args.js';
import { CommandError } from './cli/command-error.js';
import { helpText } from './cli/help.js';
import { serve } from './cli/serve.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './log.js';
/** Entry point: parse the command line, load config, run the command. */
async function main() {
    // `sync` parses its own command line: there --app-id/--app-key/--master-key name the source app.
    if (process.argv[2] === 'sync') {
        const { syncCommand } = await import('./cli/sync-command.js');
        await syncCommand(process.argv.slice(3), process.env, (line) => console.log(line));
        return;
    }
    // `import` parses its own command line too (--dry-run, --classes); exit 1 when records failed.
    if (process.argv[2] === 'import') {
        const { importCommand } = await import('./cli/import-command.js');
        process.exitCode = await importCommand(process.argv.slice(3), process.env);
        return;
    }
    let args;
    try {
        args = parseArgs(process.argv.slice(2));
    }
    catch (err) {
        console.error(`larder: ${err.message}\nRun 'larder --help' for usage.`);
        process.exit(2);
    }
    if (args.help) {
        process.stdout.write(helpText());
        return;
    }
    if (args.flags['--version']) {
        const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
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
            const { indexCommand } = await import('./cli/index-command.js');
            await indexCommand(config, rest, (line) => console.log(line));
            return;
        }
        case 'settings':
        case 'permissions':
        case 'default-acl': {
            const { adminCommand } = await import('./cli/admin-command.js');
            await adminCommand(config, command, rest, (line) => console.log(line));
            return;
        }
        default:
            console.error(`larder: unknown command '${command}'. Run 'larder --help' for usage.`);
            process.exit(2);
    }
}
main().catch((err) => {
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
//# sourceMappingURL=main.js.map