/**
 * Turns a unique violation raised by a user write into the user error it means. Uniqueness of
 * username, email, phone and platform accounts is enforced by indexes (migration 3), so two
 * concurrent sign-ups race inside PostgreSQL and the loser's whole transaction rolls back;
 * this file only names the index that fired.
 */
import { ApiError, isApiError } from '../errors/api-error.js';
/** The binding table's primary key: one platform account, one user. */
export const AUTH_BINDING_KEY = '_larder_auth_bindings_pkey';
const BY_INDEX = {
    _User_unique_username: 'usernameTaken',
    _User_unique_email: 'emailTaken',
    _User_unique_mobilePhoneNumber: 'mobilePhoneTaken',
    [AUTH_BINDING_KEY]: 'authDataTaken',
};
/** The index or constraint a unique violation (translated to 137) names, if it is one. */
export function violatedIndex(err) {
    if (!isApiError(err) || err.errorName !== 'duplicateValue')
        return undefined;
    const cause = err.cause;
    if (typeof cause !== 'object' || cause === null || !('constraint' in cause))
        return undefined;
    const name = cause.constraint;
    return typeof name === 'string' ? name : undefined;
}
/** Maps a unique violation of a user write to 202/203/214/208; anything else passes through. */
export function userWriteError(err) {
    const index = violatedIndex(err);
    const name = index ? BY_INDEX[index] : undefined;
    if (!name)
        return err;
    const mapped = new ApiError(name);
    mapped.cause = err;
    return mapped;
}
/** Runs a user write and maps its unique violations (see userWriteError). */
export async function mappingUniqueViolations(work) {
    try {
        return await work();
    }
    catch (err) {
        throw userWriteError(err);
    }
}
//# sourceMappingURL=unique-violation.js.map