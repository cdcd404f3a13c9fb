import { ApiError } from '../errors/api-error.js';
import { isPlainObject } from '../objects/decode-value.js';
import { loginWithAuthData } from './auth-data-login.js';
import { createUser } from './create-user.js';
/** Signs a user up, or logs in with authData. */
export async function signUp(ctx, body, opts) {
    if (!isPlainObject(body))
        throw new ApiError('invalidJson');
    const hasPassword = body.password !== undefined && body.password !== null && body.password !== '';
    if (body.authData !== undefined && body.authData !== null && !hasPassword) {
        return loginWithAuthData(ctx, body, opts);
    }
    if (body.username === undefined || body.username === null || body.username === '')
        throw new ApiError('usernameMissing');
    if (!hasPassword)
        throw new ApiError('passwordMissing');
    const created = await createUser(ctx, body);
    return { ...created, created: true };
}
//# sourceMappingURL=sign-up.js.map