import { isApiError } from '../errors/api-error.js';
import { migrate } from '../storage/migrations.js';
import { CommandError } from './command-error.js';
import { openConfiguredDatabase } from './serve.js';
/**
 * Runs an operator command against the configured database: opens it (taking the data-dir
 * lock on the embedded engine), migrates it, runs `work`, and always closes it. Only migrations
 * run, not openApp: keys are none of a command's business (openApp would generate and store
 * keys on a fresh database without anyone seeing them). An ApiError becomes a CommandError
 * (main prints it and exits 2).
 */
export async function withCommandDatabase(config, work) {
    const { db, lock } = await openConfiguredDatabase(config);
    try {
        await migrate(db);
        return await work(db);
    }
    catch (err) {
        if (isApiError(err))
            throw new CommandError(err.message);
        throw err;
    }
    finally {
        await db.close();
        lock?.release();
    }
}
//# sourceMappingURL=command-database.js.map