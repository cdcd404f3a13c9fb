/**
 * The wire shape of a user as the user endpoints return it (sign-up, login, /users/me, get by
 * id): every stored field except the hidden ones (password, salt, the stored session token),
 * plus objectId/createdAt/updatedAt, plus `sessionToken` only when the caller is entitled to it
 * (sign-up, login, me, refresh). `authData` is hidden from generic object paths and shown here
 * only to the user itself or the master key (see docs/users.md).
 */
import { encodeRow } from '../objects/encode.js';
/** A user in login shape: never the password, the salt or (unless given) the session token. */
export function userResponse(row, opts = {}) {
    const out = encodeRow(row, { className: '_User', withAcl: opts.withAcl ?? false });
    const withAuthData = opts.withAuthData ?? opts.sessionToken !== undefined;
    const authData = row.data.authData;
    if (withAuthData && authData !== undefined && authData !== null)
        out.authData = authData;
    if (opts.sessionToken !== undefined)
        out.sessionToken = opts.sessionToken;
    return out;
}
//# sourceMappingURL=user-response.js.map