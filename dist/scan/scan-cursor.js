/**
 * Scan cursors. A cursor carries where the previous page ended (the last scan-key value and
 * objectId) and is signed with the app's server secret, so a client can neither forge one nor
 * move it to another class or scan key. Cursors are valid for 10 minutes (spec: "Scan cursor").
 * Being stateless, they work across processes behind a load balancer.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../auth/constant-time.js';
import { ApiError } from '../errors/api-error.js';
/** How long a cursor stays valid after it was issued. */
export const CURSOR_TTL_MS = 10 * 60 * 1000;
/** Longest cursor text accepted; real ones are a few hundred characters. */
export const MAX_CURSOR_LENGTH = 4096;
const DOMAIN = 'larder.scan.v1:';
function mac(secret, payload) {
    return createHmac('sha256', secret).update(DOMAIN + payload).digest('base64url');
}
/** Encodes and signs a cursor. */
export function signCursor(secret, s) {
    const payload = Buffer.from(JSON.stringify([s.className, s.scanKey, s.lastValue, s.lastId, s.issuedAt])).toString('base64url');
    return `${payload}.${mac(secret, payload)}`;
}
function invalid(detail) {
    return new ApiError('invalidQuery', `Invalid scan cursor: ${detail}. Start the scan again without a cursor.`);
}
/**
 * Checks a cursor given back by a client: signature, class, scan key and age. Every failure is
 * error 102 with a message saying which check failed.
 */
export function verifyCursor(secret, cursor, expect) {
    if (cursor.length > MAX_CURSOR_LENGTH)
        throw invalid('too long');
    const dot = cursor.indexOf('.');
    if (dot <= 0)
        throw invalid('malformed');
    const payload = cursor.slice(0, dot);
    if (!safeEqual(cursor.slice(dot + 1), mac(secret, payload)))
        throw invalid('the signature does not match (forged or altered)');
    let parsed;
    try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    }
    catch {
        throw invalid('malformed');
    }
    if (!Array.isArray(parsed) || parsed.length !== 5)
        throw invalid('malformed');
    const [className, scanKey, lastValue, lastId, issuedAt] = parsed;
    if (typeof className !== 'string' || typeof scanKey !== 'string' || typeof lastId !== 'string' || typeof issuedAt !== 'number' || !(lastValue === null || typeof lastValue === 'string')) {
        throw invalid('malformed');
    }
    if (className !== expect.className)
        throw invalid(`it was issued for class '${className}'`);
    if (scanKey !== expect.scanKey)
        throw invalid(`it was issued for scan_key '${scanKey}'`);
    if (expect.now - issuedAt > CURSOR_TTL_MS)
        throw new ApiError('invalidQuery', 'The scan cursor has expired (cursors are valid for 10 minutes). Start the scan again without a cursor.');
    if (issuedAt - expect.now > CURSOR_TTL_MS)
        throw invalid('issued in the future');
    return { className, scanKey, lastValue, lastId, issuedAt };
}
//# sourceMappingURL=scan-cursor.js.map