/**
 * The last step of every login of an existing user (password, SMS code, authData, phone sign-up
 * of a known number): the write pipeline's `login` stages around handing out the session token.
 * Before extensions (LeanEngine's `onLogin`) may refuse the login by throwing; after extensions
 * (LiveQuery's `login` event) hear about it once the token is issued.
 */
import type { RequestContext } from '../app-context.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import { restObjectOf } from '../objects/write-body.ts';
import { afterStage, beforeStage } from '../writes/run-write.ts';
import { sessionTokenOf } from './session-issue.ts';

/** Runs the login stages for a user whose credentials were checked; returns its session token. */
export async function completeLogin(ctx: RequestContext, row: ObjectRow): Promise<string> {
  const needs = ctx.app.writes.needs('_User', 'login');
  if (needs.before) {
    const object = restObjectOf('_User', row);
    await beforeStage({ ctx, className: '_User', op: 'login', source: 'api', objectId: row.objectId, object, stored: object, flags: {} });
  }
  const token = await sessionTokenOf(ctx.app.db, row);
  if (needs.after) {
    afterStage(ctx, [{ ctx, className: '_User', op: 'login', source: 'api', objectId: row.objectId, object: restObjectOf('_User', row), flags: {} }]);
  }
  return token;
}
