/**
 * The wire shape of a user as the user endpoints return it (sign-up, login, /users/me, get by
 * id): every stored field except the hidden ones (password, salt, the stored session token),
 * plus objectId/createdAt/updatedAt, plus `sessionToken` only when the caller is entitled to it
 * (sign-up, login, me, refresh). `authData` is hidden from generic object paths and shown here
 * only to the user itself or the master key (see docs/users.md).
 */
import { encodeRow, type WireObject } from '../objects/encode.ts';
import type { ObjectRow } from '../objects/object-row.ts';

/** Options of a user response. */
export interface UserResponseOptions {
  /** The token to return (the user's own, on sign-up, login, me and refresh). */
  sessionToken?: string;
  /** Include `authData` (the user itself or the master key); defaults to true with a token. */
  withAuthData?: boolean;
  /** Include the ACL (master-key reads asking for returnACL). */
  withAcl?: boolean;
  /** Client-invisible fields the reader may not see (another user's contact data). */
  drop?: readonly string[];
}

/** A user in login shape: never the password, the salt or (unless given) the session token. */
export function userResponse(row: ObjectRow, opts: UserResponseOptions = {}): WireObject {
  const out = encodeRow(row, { className: '_User', withAcl: opts.withAcl ?? false, drop: opts.drop });
  const withAuthData = opts.withAuthData ?? opts.sessionToken !== undefined;
  const authData = row.data.authData;
  if (withAuthData && authData !== undefined && authData !== null) out.authData = authData;
  if (opts.sessionToken !== undefined) out.sessionToken = opts.sessionToken;
  return out;
}
