import { randomBytes } from 'node:crypto';
import { sql } from '../sql/fragment.js';
const ALPHANUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** A random string over [A-Za-z0-9] from a CSPRNG (no modulo bias: 62*4=248 < 256). */
export function randomToken(length, alphabet = ALPHANUM) {
    let out = '';
    while (out.length < length) {
        for (const b of randomBytes(length * 2)) {
            if (b < alphabet.length * Math.floor(256 / alphabet.length))
                out += alphabet[b % alphabet.length];
            if (out.length === length)
                break;
        }
    }
    return out;
}
/**
 * Loads the stored keys, generating missing ones on first start. Keys given in the config win
 * and are stored, so the data always knows which app it belongs to. Returns whether anything
 * was generated (start-up prints generated keys once).
 */
export async function loadAppKeys(db, given) {
    const rows = await db.query(sql `SELECT value FROM _larder_meta WHERE key = 'app'`);
    const stored = rows[0]?.value ?? {};
    const generated = [];
    const pick = (k, make) => {
        const v = given[k] ?? stored[k];
        if (v)
            return v;
        generated.push(k);
        return make();
    };
    const keys = {
        appId: pick('appId', () => `${randomToken(24)}-larder`),
        appKey: pick('appKey', () => randomToken(24)),
        masterKey: pick('masterKey', () => randomToken(24)),
        serverSecret: stored.serverSecret ?? randomBytes(32).toString('hex'),
    };
    const changed = ['appId', 'appKey', 'masterKey', 'serverSecret'].some((k) => stored[k] !== keys[k]);
    if (changed) {
        await db.query(sql `INSERT INTO _larder_meta (key, value) VALUES ('app', ${JSON.stringify(keys)}::jsonb)
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`);
    }
    return { keys, generated };
}
//# sourceMappingURL=app-keys.js.map