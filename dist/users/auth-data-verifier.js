import { ApiError, isApiError } from '../errors/api-error.js';
// Per app, not per process: two apps in one process may trust different platforms.
const registries = new WeakMap();
/** Registers (or, with undefined, removes) the verifier of one platform for an app. */
export function setAuthDataVerifier(app, platform, verifier) {
    let reg = registries.get(app);
    if (!reg) {
        reg = new Map();
        registries.set(app, reg);
    }
    if (verifier)
        reg.set(platform, verifier);
    else
        reg.delete(platform);
}
/** Runs the registered verifiers of the given entries; platforms without one pass. */
export async function verifyAuthData(app, entries) {
    const reg = registries.get(app);
    if (!reg)
        return;
    for (const entry of entries) {
        const verifier = reg.get(entry.platform);
        if (!verifier)
            continue;
        let ok;
        try {
            ok = await verifier.verify({ platform: entry.platform, uid: entry.uid, data: entry.data });
        }
        catch (err) {
            if (isApiError(err))
                throw err;
            ok = false;
        }
        if (ok === false)
            throw new ApiError('invalidLinkedSession', `Invalid linked session: authData.${entry.platform} was rejected by its verifier.`);
    }
}
//# sourceMappingURL=auth-data-verifier.js.map