/**
 * Password hashing. New passwords use scrypt from node:crypto, stored as one self-describing
 * string `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>` so that the cost can be raised later without
 * a migration. Users imported from LeanCloud keep their `password` (base64 of salted SHA-512
 * applied 513 times) and `salt` (leancloud-behaviour §2.3); `verifyPassword` tells the two apart
 * by format, and any hash that is not current scrypt comes back with an `upgrade` to store.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
/**
 * scrypt cost: N = 2^14, r = 8, p = 1 (16 MiB, tens of milliseconds): the parameters scrypt's
 * author recommends for interactive logins. Hashes made with lower parameters are upgraded on
 * the next successful login.
 */
export const SCRYPT_PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 64;
const SALT_BYTES = 16;
/** The most memory a stored hash may ask for: a hostile stored value must not exhaust memory. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
/** Rounds of SHA-512 in LeanCloud's export format: one over salt+password, then 512 more. */
const LEANCLOUD_ROUNDS = 513;
/** Longest password accepted; scrypt and SHA-512 take any length, this only bounds the work. */
export const MAX_PASSWORD_LENGTH = 4096;
const SCRYPT_FORMAT = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]{1,200})\$([A-Za-z0-9+/=]{1,400})$/;
function scryptAsync(plain, salt, keyLength, params) {
    return new Promise((resolve, reject) => {
        scrypt(plain, salt, keyLength, { ...params, maxmem: MAX_SCRYPT_MEMORY }, (err, key) => (err ? reject(err) : resolve(key)));
    });
}
/** Hashes a new password with the current scrypt parameters. */
export async function hashPassword(plain) {
    const salt = randomBytes(SALT_BYTES);
    const key = await scryptAsync(plain, salt, KEY_LENGTH, SCRYPT_PARAMS);
    const { N, r, p } = SCRYPT_PARAMS;
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}
/** LeanCloud's export hash: base64(sha512^513(salt + password)), over UTF-8. */
export function leancloudHash(plain, salt) {
    let h = createHash('sha512').update(salt + plain, 'utf8').digest();
    for (let i = 1; i < LEANCLOUD_ROUNDS; i++)
        h = createHash('sha512').update(h).digest();
    return h.toString('base64');
}
/** Constant-time equality of two byte strings (false on different lengths, which are public). */
function sameBytes(a, b) {
    return a.length === b.length && timingSafeEqual(a, b);
}
async function verifyScrypt(plain, m) {
    const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
    // A malformed or absurd stored cost is treated as a mismatch, never as a crash or a hang.
    if (N < 2 || (N & (N - 1)) !== 0 || r < 1 || p < 1 || 128 * N * r * p > MAX_SCRYPT_MEMORY)
        return { ok: false };
    const salt = Buffer.from(m[4], 'base64');
    const expected = Buffer.from(m[5], 'base64');
    if (expected.length === 0)
        return { ok: false };
    const key = await scryptAsync(plain, salt, expected.length, { N, r, p });
    if (!sameBytes(key, expected))
        return { ok: false };
    const current = N === SCRYPT_PARAMS.N && r === SCRYPT_PARAMS.r && p === SCRYPT_PARAMS.p && expected.length === KEY_LENGTH;
    return current ? { ok: true } : { ok: true, upgrade: await hashPassword(plain) };
}
/**
 * Checks a password against a stored user's `password` (and `salt` for LeanCloud hashes). A user
 * without a password (authData or anonymous sign-up) never matches. Comparisons are constant time.
 */
export async function verifyPassword(plain, stored) {
    const { password, salt } = stored;
    if (typeof plain !== 'string' || typeof password !== 'string' || password === '')
        return { ok: false };
    if (plain.length > MAX_PASSWORD_LENGTH)
        return { ok: false };
    const m = SCRYPT_FORMAT.exec(password);
    if (m)
        return verifyScrypt(plain, m);
    if (typeof salt !== 'string' || salt === '')
        return { ok: false };
    const given = Buffer.from(leancloudHash(plain, salt), 'utf8');
    if (!sameBytes(given, Buffer.from(password, 'utf8')))
        return { ok: false };
    return { ok: true, upgrade: await hashPassword(plain) };
}
/** True when a stored password value is one this server can verify (scrypt or LeanCloud). */
export function isPasswordSet(stored) {
    return typeof stored.password === 'string' && stored.password !== '';
}
//# sourceMappingURL=password.js.map