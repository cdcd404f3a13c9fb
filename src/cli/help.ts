import { SETTINGS } from '../config.ts';

/** The text of `larder --help`. */
export function helpText(): string {
  const rows = SETTINGS.map((s) => {
    const def = s.default !== undefined ? ` (default ${s.default})` : '';
    return `  ${(s.flag + ' <v>').padEnd(30)} ${s.env.padEnd(30)} ${s.help}${def}`;
  });
  return `Larder: a self-hosted server for the LeanCloud data storage REST API 1.1.

Usage:
  larder serve [options]            start the server (the default command: plain 'larder' too)
  larder index add <class> <field>  create the index the query compiler uses for <field>
  larder index list [<class>]       list indexes made with 'index add'
  larder index drop <class> <field> drop such an index
  larder settings get               print the app settings (docs/admin.md)
  larder settings set <key> <json>  change one app setting (null resets it)
  larder permissions get <class>    print a class's permissions (docs/security.md)
  larder permissions set <class> '<json>'     change some of them, e.g. '{"find":{"*":true}}'
  larder default-acl get <class>    print a class's default ACL for new objects
  larder default-acl set <class> '<json>|null'  set it ("creator" = the creating user)
  larder sync --from <url> --app-id <id> --app-key <k> --master-key <mk> [--once]
                                    copy a running LeanCloud app (or Larder) here, then keep
                                    it up to date by updatedAt ('larder sync --help')
  larder import <path> [--dry-run] [--classes A,B]
                                    import a LeanCloud data export (.tar.gz, folder, .jsonl or
                                    {results} .json files; 'larder import --help')
  larder files pull [--dry-run] [--concurrency n]
                                    copy file bytes still on LeanCloud's file domain into this
                                    server's storage and rewrite their urls ('larder files --help')
  larder backup <file.tar.gz>       write the app (data, users, keys, settings, local files)
                                    to one archive; 'larder restore <file>' loads it into an
                                    empty database (docs/backup.md)
  larder restore <file.tar.gz>      see backup
  larder move --to <postgres url> [--to-schema <name>]
                                    copy the embedded app to an empty PostgreSQL schema
  larder engine refresh|status      read the LeanEngine hook list again / show it (docs/cloud-code.md)
  larder schedule add '{"function":"daily","cron":"0 3 * * *"}'
  larder schedule list|runs <id>|set <id> '<json>'|remove <id>
                                    scheduled cloud functions (params, production, timezone)
  larder --help                     this text
  larder --version                  print the version

In a checkout, run these as 'npx larder ...' (or 'npm link' once for a global 'larder').

Options (flag, environment variable, meaning). A JSON config file given with --config <path>
or LARDER_CONFIG may hold the same settings by env name or by key (e.g. {"LARDER_PORT": 8080}).
Precedence: flags > environment > config file > defaults.
  ${'--config <path>'.padEnd(30)} ${'LARDER_CONFIG'.padEnd(30)} JSON config file
${rows.join('\n')}

With no DATABASE_URL, data lives in the embedded engine (PGlite) under LARDER_DATA_DIR.
Keys that are not given are generated on first start, kept with the data, and printed once.
Docs: docs/running.md, docs/sdk.md, docs/indexes.md, docs/errors.md, docs/compatibility.md,
docs/admin.md, docs/security.md, docs/files.md, docs/deployment.md, docs/operations.md
`;
}
