/**
 * The HTML of the pages behind mailed links: one small, accessible document (lang attribute,
 * labelled fields, an alert role for errors, no script at all). Every text that reaches the
 * markup (configured texts, usernames, addresses, the token) is HTML-escaped here, in one place,
 * and the style block is allowed by its hash in the Content-Security-Policy, so that nothing
 * injected could run even if escaping were ever missed.
 */
import { createHash } from 'node:crypto';
/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(text) {
    return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}
const STYLE = `body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;padding:2rem 1rem;background:#f6f6f6;color:#1a1a1a}
main{max-width:28rem;margin:0 auto;background:#fff;padding:1.5rem 2rem;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem}label{display:block;font-weight:600;margin-top:1rem}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #767676;border-radius:4px}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem;border:0;border-radius:4px;background:#0b57d0;color:#fff;cursor:pointer}
input:focus,button:focus{outline:3px solid #0b57d0;outline-offset:2px}.error{color:#b3261e;font-weight:600}`;
/** Headers of every page: no caching, no referrer (the URL holds the token), no framing, no script. */
export const PAGE_HEADERS = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
};
/** A language tag for the lang attribute; anything odd falls back to en. */
function langOf(tag) {
    return /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,3}$/.test(tag) ? tag : 'en';
}
/** Renders a whole document. */
export function renderPage(p) {
    const paragraphs = p.paragraphs.map((t) => `<p>${escapeHtml(t)}</p>`).join('\n');
    const error = p.error ? `<p class="error" role="alert">${escapeHtml(p.error)}</p>\n` : '';
    return `<!doctype html>
<html lang="${escapeHtml(langOf(p.lang))}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(p.title)} – ${escapeHtml(p.appName)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(p.title)}</h1>
${paragraphs}
${error}${p.formHtml ?? ''}
</main>
</body>
</html>
`;
}
/** The new-password form; posts back to the same path with the token as a hidden field. */
export function resetForm(token, labels) {
    return `<form method="post" action="reset-password">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<label for="password">${escapeHtml(labels.password)}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<label for="repeat">${escapeHtml(labels.repeat)}</label>
<input id="repeat" name="repeat" type="password" autocomplete="new-password" required>
<button type="submit">${escapeHtml(labels.button)}</button>
</form>`;
}
//# sourceMappingURL=page-html.js.map