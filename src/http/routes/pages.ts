/**
 * The HTML pages behind mailed links, outside /1.1 and without app keys (the token in the link is
 * the only credential, and it is single-use):
 *
 *   GET  /larder/verify-email?token=...    uses the link, shows the outcome
 *   GET  /larder/reset-password?token=...  shows the new-password form (the link stays unused)
 *   POST /larder/reset-password            form-urlencoded {token, password, repeat}: uses the link
 *
 * A valid page answers 200; a link that is unknown, expired or used answers 410 with a page that
 * says so; a form with a bad password answers 400 and shows the form again. The form needs no
 * CSRF token of its own: the reset token it carries is the capability, and a forged post without
 * it changes nothing. Only these routes parse application/x-www-form-urlencoded.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { verifyEmail } from '../../account-mail/email-verification.ts';
import { fill, textsOf } from '../../mail/mail-texts.ts';
import { PAGE_HEADERS, renderPage, resetForm } from '../../mail/page-html.ts';
import { checkResetLink, resetPasswordByLink } from '../../account-mail/password-reset.ts';
import { checkPassword } from '../../users/user-fields.ts';

/** Largest form body accepted (two passwords and a token fit many times over). */
const FORM_LIMIT_BYTES = 16 * 1024;
const FORM_TYPE = 'application/x-www-form-urlencoded';

function field(source: unknown, key: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const v = (source as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

function send(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(html);
}

/** Mounts the pages on the server, with a form parser scoped to them. */
export async function mountPages(server: FastifyInstance, app: AppContext): Promise<void> {
  await server.register(async (scope) => {
    scope.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    const page = (title: string, paragraphs: string[], extra: { error?: string; formHtml?: string } = {}) => {
      const t = textsOf(app);
      return renderPage({ lang: t.pageLang, appName: t.appName, title, paragraphs, ...extra });
    };
    const invalidLink = () => {
      const t = textsOf(app);
      return page(fill(t.invalidLinkTitle, t.appName, {}), [fill(t.invalidLinkText, t.appName, {})]);
    };
    const formPage = (token: string, username: string, error?: string) => {
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
      if (!done) return send(reply, 410, invalidLink());
      const t = textsOf(app);
      return send(reply, 200, page(fill(t.emailVerifiedTitle, t.appName, done), [fill(t.emailVerifiedText, t.appName, done)]));
    });

    scope.get('/larder/reset-password', { exposeHeadRoute: false }, async (req, reply) => {
      const token = field(req.query, 'token');
      const owner = await checkResetLink(app, token);
      if (!owner || token === undefined) return send(reply, 410, invalidLink());
      return send(reply, 200, formPage(token, owner.username));
    });

    scope.post('/larder/reset-password', async (req, reply) => {
      const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== FORM_TYPE) return reply.code(415).headers(PAGE_HEADERS).send(page('Unsupported Media Type', [`Send the form as ${FORM_TYPE}.`]));
      const token = field(req.body, 'token');
      const owner = await checkResetLink(app, token);
      if (!owner || token === undefined) return send(reply, 410, invalidLink());
      const t = textsOf(app);
      const password = field(req.body, 'password');
      try {
        checkPassword(password ?? null, 'create');
      } catch {
        return send(reply, 400, formPage(token, owner.username, t.passwordInvalidText));
      }
      if (password !== field(req.body, 'repeat')) return send(reply, 400, formPage(token, owner.username, t.passwordsDifferText));
      if (!(await resetPasswordByLink(app, token, password as string))) return send(reply, 410, invalidLink());
      return send(reply, 200, page(fill(t.passwordResetTitle, t.appName, {}), [fill(t.passwordResetText, t.appName, {})]));
    });
  });
}
