/**
 * POST /1.1/users (and POST /1.1/classes/_User): a body with `authData` and no password logs in
 * or signs up through the third-party account (auth-data-login.ts); any other body is a sign-up
 * that needs a username (200/217) and a password (201/218). The answer of a sign-up is the whole
 * user with its session token, as the real server sends (leancloud-behaviour §2.4).
 */
import type { RequestContext } from '../app-context.ts';
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import { loginWithAuthData } from './auth-data-login.ts';
import { createUser } from './create-user.ts';

/** The outcome: 201 for a new user, 200 for an authData login of an existing one. */
export interface SignedUp {
  readonly row: ObjectRow;
  readonly sessionToken: string;
  readonly created: boolean;
}

/** Signs a user up, or logs in with authData. */
export async function signUp(ctx: RequestContext, body: unknown, opts: { failOnNotExist: boolean }): Promise<SignedUp> {
  if (!isPlainObject(body)) throw new ApiError('invalidJson');
  const hasPassword = body.password !== undefined && body.password !== null && body.password !== '';
  if (body.authData !== undefined && body.authData !== null && !hasPassword) {
    return loginWithAuthData(ctx, body, opts);
  }
  if (body.username === undefined || body.username === null || body.username === '') throw new ApiError('usernameMissing');
  if (!hasPassword) throw new ApiError('passwordMissing');
  const created = await createUser(ctx, body);
  return { ...created, created: true };
}
