import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Harness } from './engines.ts';

/** A user signed up through POST /1.1/users, as the tests of the user endpoints use it. */
export interface SignedUpUser {
  objectId: string;
  sessionToken: string;
  username: string;
  password: string;
  body: Record<string, any>;
}

/** A fresh unique name with a prefix. */
export function uniqueName(prefix = 'u'): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

/** Signs a user up (201 asserted) with optional extra fields. */
export async function signUp(h: Harness, extra: Record<string, unknown> = {}, password = 'pw-' + randomBytes(4).toString('hex')): Promise<SignedUpUser> {
  const username = typeof extra.username === 'string' ? extra.username : uniqueName();
  const res = await h.client.post('/1.1/users', { username, password, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { objectId: res.body.objectId, sessionToken: res.body.sessionToken, username, password, body: res.body };
}

/** Logs in with a body; returns the raw response. */
export function logIn(h: Harness, body: Record<string, unknown>) {
  return h.client.post('/1.1/login', body);
}

/** Asserts an error response: HTTP status and LeanCloud code. */
export function assertError(res: { status: number; body: any }, status: number, code: number): void {
  assert.equal(res.status, status, `expected HTTP ${status} code ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body?.code, code, `expected code ${code}, got ${JSON.stringify(res.body)}`);
  assert.equal(typeof res.body.error, 'string');
}
