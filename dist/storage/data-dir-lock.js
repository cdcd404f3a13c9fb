import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
/** True while process `pid` exists on this host (EPERM: it exists but belongs to someone else). */
export function processAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (err) {
        return err.code === 'EPERM';
    }
}
/**
 * Takes the lock file `larder.lock` in the data directory, so two processes never open the same
 * embedded database (PGlite would corrupt it). A lock left by a dead process is taken over.
 */
export function lockDataDir(dir) {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'larder.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            const fd = openSync(path, 'wx');
            writeSync(fd, String(process.pid));
            closeSync(fd);
            let released = false;
            return {
                release() {
                    if (released)
                        return;
                    released = true;
                    try {
                        unlinkSync(path);
                    }
                    catch {
                        /* already gone */
                    }
                },
            };
        }
        catch (err) {
            if (err.code !== 'EEXIST')
                throw err;
            const pid = Number(readFileSync(path, 'utf8').trim());
            if (Number.isInteger(pid) && pid > 0 && processAlive(pid) && pid !== process.pid) {
                throw new Error(`the data directory ${dir} is in use by process ${pid} (lock file ${path})`);
            }
            unlinkSync(path); // stale lock of a dead process
        }
    }
    throw new Error(`could not lock the data directory ${dir}`);
}
//# sourceMappingURL=data-dir-lock.js.map