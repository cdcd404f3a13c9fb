/**
 * Session tokens and generated usernames: 25 characters of [a-z0-9], like LeanCloud's
 * (leancloud-behaviour §4.1), drawn from the CSPRNG without modulo bias. 36^25 is about 2^129,
 * so a token cannot be guessed; tokens are looked up through a unique index on `_User`.
 */
import { randomBytes } from 'node:crypto';
import { MAX_SESSION_TOKEN_LENGTH } from '../auth/principal.js';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Length of session tokens and of generated usernames. */
export const TOKEN_LENGTH = 25;
// 252 = 7 * 36: bytes at or above it are dropped so that every character is equally likely.
const UNBIASED_LIMIT = 252;
/** A random string of `length` characters of [a-z0-9] from the CSPRNG. */
export function randomToken(length = TOKEN_LENGTH) {
    let out = '';
    while (out.length < length) {
        for (const byte of randomBytes(length * 2)) {
            if (byte >= UNBIASED_LIMIT)
                continue;
            out += ALPHABET[byte % ALPHABET.length];
            if (out.length === length)
                break;
        }
    }
    return out;
}
/** A new session token. */
export function newSessionToken() {
    return randomToken(TOKEN_LENGTH);
}
/** A username for a user created from authData (random, like LeanCloud's). */
export function randomUsername() {
    return randomToken(TOKEN_LENGTH);
}
/**
 * True when a header value can be a session token at all (skips the lookup otherwise); imported
 * tokens may have another shape than ours, so only the type and the length are checked.
 */
export function plausibleSessionToken(value) {
    return typeof value === 'string' && value.length > 0 && value.length <= MAX_SESSION_TOKEN_LENGTH;
}
//# sourceMappingURL=session-token.js.map