/**
 * The SMS endpoints (leancloud-behaviour §2.4): requesting codes, using them, and signing up or
 * logging in by phone. Shapes: every request endpoint answers `{}`; verifySmsCode `{}`;
 * verifyMobilePhone `{updatedAt, objectId}`; resetPasswordBySmsCode `{}`; requestChangePhoneNumber and
 * changePhoneNumber `{}` (session required); usersByMobilePhone the
 * user with its session token (201 + Location for a new user, 200 for an existing one).
 */
import { changePhoneNumber, requestChangePhoneNumber } from '../../phone/change-phone.ts';
import { signUpOrLogInWithPhone } from '../../phone/phone-sign-up.ts';
import { requestLoginSmsCode, requestMobilePhoneVerify, requestPasswordResetBySmsCode, requestSmsCode } from '../../phone/sms-requests.ts';
import { resetPasswordBySmsCode, verifyMobilePhone, verifySmsCode } from '../../phone/sms-verify.ts';
import { userResponse } from '../../users/user-response.ts';
import { ok, type Route } from '../route.ts';

/** Routes of the SMS flows. */
export const smsRoutes: Route[] = [
  { method: 'POST', path: '/1.1/requestSmsCode', handler: async (req) => ok(await requestSmsCode(req.ctx.app, req.body)) },
  { method: 'POST', path: '/1.1/verifySmsCode/:code', handler: async (req) => ok(await verifySmsCode(req.ctx.app, req.params.code, req.body)) },
  { method: 'POST', path: '/1.1/requestLoginSmsCode', handler: async (req) => ok(await requestLoginSmsCode(req.ctx.app, req.body)) },
  { method: 'POST', path: '/1.1/requestMobilePhoneVerify', handler: async (req) => ok(await requestMobilePhoneVerify(req.ctx.app, req.body)) },
  { method: 'POST', path: '/1.1/verifyMobilePhone/:code', handler: async (req) => ok(await verifyMobilePhone(req.ctx, req.params.code, req.body)) },
  { method: 'POST', path: '/1.1/requestPasswordResetBySmsCode', handler: async (req) => ok(await requestPasswordResetBySmsCode(req.ctx.app, req.body)) },
  { method: 'PUT', path: '/1.1/resetPasswordBySmsCode/:code', handler: async (req) => ok(await resetPasswordBySmsCode(req.ctx.app, req.params.code, req.body)) },
  { method: 'POST', path: '/1.1/requestChangePhoneNumber', handler: async (req) => ok(await requestChangePhoneNumber(req.ctx, req.body)) },
  { method: 'POST', path: '/1.1/changePhoneNumber', handler: async (req) => ok(await changePhoneNumber(req.ctx, req.body)) },
  {
    method: 'POST',
    path: '/1.1/usersByMobilePhone',
    handler: async (req) => {
      const res = await signUpOrLogInWithPhone(req.ctx, req.body);
      const body = userResponse(res.row, { sessionToken: res.sessionToken });
      if (!res.created) return ok(body);
      return ok(body, 201, { Location: `${req.ctx.baseUrl}/1.1/users/${res.row.objectId}` });
    },
  },
];
