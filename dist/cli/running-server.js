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
import { processAlive } from '../storage/data-dir-lock.js';
import { CommandError } from './command-error.js';
import { writePrivateFile } from './key-disclosure.js';
/** The admin file of a data directory. */
export function adminFilePath(dataDir) {
    return join(dataDir, 'larder-admin.json');
}
/** Records this server's address and keys for the CLI (mode 0600). */
export function writeAdminFile(dataDir, server) {
    writePrivateFile(adminFilePath(dataDir), `${JSON.stringify(server)}\n`);
}
/** Removes the admin file (at shutdown). */
export function removeAdminFile(dataDir) {
    rmSync(adminFilePath(dataDir), { force: true });
}
function readJson(path) {
    try {
        return JSON.parse(readFileSync(path, 'utf8'));
    }
    catch {
        return undefined;
    }
}
/**
 * The server that holds `dataDir` right now, if it left an admin file: the lock's pid must be a
 * live process other than this one and match the file's pid. Undefined otherwise (then the
 * command opens the directory itself and the lock explains any refusal).
 */
export function findRunningServer(dataDir) {
    let lockPid;
    try {
        lockPid = Number(readFileSync(join(dataDir, 'larder.lock'), 'utf8').trim());
    }
    catch {
        return undefined;
    }
    if (!Number.isInteger(lockPid) || lockPid <= 0 || lockPid === process.pid || !processAlive(lockPid))
        return undefined;
    const f = readJson(adminFilePath(dataDir));
    if (typeof f !== 'object' || f === null)
        return undefined;
    const { pid, url, appId, masterKey } = f;
    if (pid !== lockPid || typeof url !== 'string' || typeof appId !== 'string' || typeof masterKey !== 'string')
        return undefined;
    return { pid, url, appId, masterKey };
}
/** One admin request to a running server; an API error becomes a CommandError with its message. */
export async function adminRequest(server, method, path, body) {
    let res;
    try {
        res = await fetch(new URL(path, server.url), {
            method,
            headers: { 'x-lc-id': server.appId, 'x-lc-key': `${server.masterKey},master`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
        });
    }
    catch (err) {
        throw new CommandError(`the server (process ${server.pid}) holds the data directory but does not answer at ${server.url}: ${err.message}`);
    }
    const text = await res.text();
    let parsed;
    try {
        parsed = JSON.parse(text);
    }
    catch {
        throw new CommandError(`the server at ${server.url} answered HTTP ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) {
        const e = parsed;
        throw new CommandError(typeof e.error === 'string' ? e.error : `HTTP ${res.status}`);
    }
    return parsed;
}
//# sourceMappingURL=running-server.js.map