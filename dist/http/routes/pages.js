import { verifyEmail } from '../../mail/email-verification.js';
import { fill, textsOf } from '../../mail/mail-texts.js';
import { PAGE_HEADERS, renderPage, resetForm } from '../../mail/page-html.js';
import { checkResetLink, resetPasswordByLink } from '../../mail/password-reset.js';
import { checkPassword } from '../../users/user-fields.js';
/** Largest form body accepted (two passwords and a token fit many times over). */
const FORM_LIMIT_BYTES = 16 * 1024;
const FORM_TYPE = 'application/x-www-form-urlencoded';
function field(source, key) {
    if (typeof source !== 'object' || source === null)
        return undefined;
    const v = source[key];
    return typeof v === 'string' ? v : undefined;
}
function send(reply, status, html) {
    return reply.code(status).headers(PAGE_HEADERS).send(html);
}
/** Mounts the pages on the server, with a form parser scoped to them. */
export async function mountPages(server, app) {
    await server.register(async (scope) => {
        scope.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_req, body, done) => {
            done(null, Object.fromEntries(new URLSearchParams(body)));
        });
        const page = (title, paragraphs, extra = {}) => {
            const t = textsOf(app);
            return renderPage({ lang: t.pageLang, appName: t.appName, title, paragraphs, ...extra });
        };
        const invalidLink = () => {
            const t = textsOf(app);
            return page(fill(t.invalidLinkTitle, t.appName, {}), [fill(t.invalidLinkText, t.appName, {})]);
        };
        const formPage = (token, username, error) => {
            const t = textsOf(app);
            const labels = { password: t.newPasswordLabel, repeat: t.repeatPasswordLabel, button: t.resetPasswordButton };
            return page(fill(t.resetPasswordTitle, t.appName, { username }), [fill(t.resetPasswordText, t.appName, { username })], {
                error,
                formHtml: resetForm(token, labels),
            });
        };
        // No automatic HEAD: a link checker's HEAD must not use up a verification link.
        scope.get('/larder/verify-email', { exposeHeadRoute: false }, async (req, reply) => {
            const done = await verifyEmail(app, field(req.query, 'token'));
            if (!done)
                return send(reply, 410, invalidLink());
            const t = textsOf(app);
            return send(reply, 200, page(fill(t.emailVerifiedTitle, t.appName, done), [fill(t.emailVerifiedText, t.appName, done)]));
        });
        scope.get('/larder/reset-password', { exposeHeadRoute: false }, async (req, reply) => {
            const token = field(req.query, 'token');
            const owner = await checkResetLink(app, token);
            if (!owner || token === undefined)
                return send(reply, 410, invalidLink());
            return send(reply, 200, formPage(token, owner.username));
        });
        scope.post('/larder/reset-password', async (req, reply) => {
            const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
            if (type !== FORM_TYPE)
                return reply.code(415).headers(PAGE_HEADERS).send(page('Unsupported Media Type', [`Send the form as ${FORM_TYPE}.`]));
            const token = field(req.body, 'token');
            const owner = await checkResetLink(app, token);
            if (!owner || token === undefined)
                return send(reply, 410, invalidLink());
            const t = textsOf(app);
            const password = field(req.body, 'password');
            try {
                checkPassword(password ?? null, 'create');
            }
            catch {
                return send(reply, 400, formPage(token, owner.username, t.passwordInvalidText));
            }
            if (password !== field(req.body, 'repeat'))
                return send(reply, 400, formPage(token, owner.username, t.passwordsDifferText));
            if (!(await resetPasswordByLink(app, token, password)))
                return send(reply, 410, invalidLink());
            return send(reply, 200, page(fill(t.passwordResetTitle, t.appName, {}), [fill(t.passwordResetText, t.appName, {})]));
        });
    });
}
//# sourceMappingURL=pages.js.map