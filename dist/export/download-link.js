/**
 * The download link of a finished export: `/larder/export/<job id>.tar.gz?token=<token>`. The
 * token is an HMAC of the job id under the app's server secret (256 bits, unguessable without
 * the secret), so that the status endpoint can show the same link again without the token being
 * stored; the job row keeps only its sha256, which the download compares in constant time.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
const DOMAIN = 'larder-export-download\0';
/** The token of a job's link. */
export function downloadToken(serverSecret, jobId) {
    return createHmac('sha256', serverSecret).update(DOMAIN + jobId).digest('base64url');
}
/** What the job row stores of a token. */
export function tokenHash(token) {
    return createHash('sha256').update(token, 'utf8').digest('hex');
}
/** True when `given` is the token whose hash is stored (constant time). */
export function tokenMatches(given, storedHash) {
    if (!storedHash)
        return false;
    const a = Buffer.from(tokenHash(given), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
}
/** Path of the download route (src/http/routes/export.ts). */
export const DOWNLOAD_ROUTE = '/larder/export/:file';
/** The absolute download URL of a job. */
export function downloadUrl(baseUrl, serverSecret, jobId) {
    return `${baseUrl.replace(/\/+$/, '')}/larder/export/${jobId}.tar.gz?token=${downloadToken(serverSecret, jobId)}`;
}
//# sourceMappingURL=download-link.js.map