import { ApiError, isApiError } from '../errors/api-error.js';
function fastifyCode(err) {
    if (typeof err === 'object' && err !== null && 'code' in err) {
        const c = err.code;
        return typeof c === 'string' ? c : undefined;
    }
    return undefined;
}
/**
 * Turns any thrown value into a status and a `{code, error}` body. Client mistakes caught by the
 * framework map to their catalogue entries; anything unknown is logged and becomes code 1/500
 * without internal details.
 */
export function errorBody(err, logUnknown) {
    if (isApiError(err))
        return { status: err.status, body: err.toJSON() };
    const code = fastifyCode(err);
    let mapped;
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        mapped = new ApiError('payloadTooLarge');
    else if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
        mapped = new ApiError('unsupportedMediaType');
    else if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
        mapped = new ApiError('invalidJson');
    else if (code?.startsWith('FST_ERR_'))
        mapped = new ApiError('badRequest', 'Bad request.');
    if (mapped)
        return { status: mapped.status, body: mapped.toJSON() };
    logUnknown(err);
    const internal = new ApiError('internal');
    return { status: internal.status, body: internal.toJSON() };
}
//# sourceMappingURL=error-body.js.map