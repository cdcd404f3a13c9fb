/**
 * The mail endpoints: POST /1.1/requestEmailVerify and POST /1.1/requestPasswordReset, both
 * `{email}` -> `{}` (also for unknown addresses; see docs/email-and-sms.md). 503 (code 1) when
 * no SMTP server is configured. The pages behind the mailed links are in pages.ts.
 */
import { requestEmailVerify } from '../../account-mail/email-verification.ts';
import { requestPasswordReset } from '../../account-mail/password-reset.ts';
import { ok, type Route } from '../route.ts';

/** Routes of the email flows. */
export const emailRoutes: Route[] = [
  { method: 'POST', path: '/1.1/requestEmailVerify', handler: async (req) => ok(await requestEmailVerify(req.ctx.app, req.body)) },
  { method: 'POST', path: '/1.1/requestPasswordReset', handler: async (req) => ok(await requestPasswordReset(req.ctx.app, req.body)) },
];
