/**
 * How `larder settings|permissions|default-acl|index` reach a server that holds the embedded data
 * directory. PGlite lets one process open the files, so while a server runs, a command cannot open
 * them itself; instead the server leaves an "admin address" file next to its lock (mode 0600: it
 * names the master key, which the database files in the same directory hold anyway) and the
 * command sends the same admin request a curl user would. The file is removed on shutdown; one
 * left by a dead process is ignored, because its pid no longer matches the live lock.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../storage/data-dir-lock.ts';
import { CommandError } from './command-error.ts';
import { writePrivateFile } from './key-disclosure.ts';

/** Where a running embedded server can be reached, as its admin file records it. */
export interface RunningServer {
  pid: number;
  url: string;
  appId: string;
  masterKey: string;
}

/** The admin file of a data directory. */
export function adminFilePath(dataDir: string): string {
  return join(dataDir, 'larder-admin.json');
}

/** Records this server's address and keys for the CLI (mode 0600). */
export function writeAdminFile(dataDir: string, server: RunningServer): void {
  writePrivateFile(adminFilePath(dataDir), `${JSON.stringify(server)}\n`);
}

/** Removes the admin file (at shutdown). */
export function removeAdminFile(dataDir: string): void {
  rmSync(adminFilePath(dataDir), { force: true });
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The server that holds `dataDir` right now, if it left an admin file: the lock's pid must be a
 * live process other than this one and match the file's pid. Undefined otherwise (then the
 * command opens the directory itself and the lock explains any refusal).
 */
export function findRunningServer(dataDir: string): RunningServer | undefined {
  let lockPid: number;
  try {
    lockPid = Number(readFileSync(join(dataDir, 'larder.lock'), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(lockPid) || lockPid <= 0 || lockPid === process.pid || !processAlive(lockPid)) return undefined;
  const f = readJson(adminFilePath(dataDir));
  if (typeof f !== 'object' || f === null) return undefined;
  const { pid, url, appId, masterKey } = f as Record<string, unknown>;
  if (pid !== lockPid || typeof url !== 'string' || typeof appId !== 'string' || typeof masterKey !== 'string') return undefined;
  return { pid, url, appId, masterKey };
}

/** One admin request to a running server; an API error becomes a CommandError with its message. */
export async function adminRequest(server: RunningServer, method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(new URL(path, server.url), {
      method,
      headers: { 'x-lc-id': server.appId, 'x-lc-key': `${server.masterKey},master`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new CommandError(`the server (process ${server.pid}) holds the data directory but does not answer at ${server.url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CommandError(`the server at ${server.url} answered HTTP ${res.status} with a body that is not JSON`);
  }
  if (!res.ok) {
    const e = parsed as { code?: unknown; error?: unknown };
    throw new CommandError(typeof e.error === 'string' ? e.error : `HTTP ${res.status}`);
  }
  return parsed;
}
