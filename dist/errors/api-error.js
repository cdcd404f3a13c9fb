import { ERRORS } from './error-codes.js';
/** The one error type that crosses layers; the HTTP layer turns it into status + {code, error}. */
export class ApiError extends Error {
    code;
    status;
    errorName;
    constructor(name, message) {
        const spec = ERRORS[name];
        super(message ?? spec.message);
        this.errorName = name;
        this.code = spec.code;
        this.status = spec.status;
    }
    /** The wire body of this error. */
    toJSON() {
        return { code: this.code, error: this.message };
    }
}
/** Throws the named error; for use in expressions. */
export function fail(name, message) {
    throw new ApiError(name, message);
}
/** True when the value is an ApiError. */
export function isApiError(value) {
    return value instanceof ApiError;
}
//# sourceMappingURL=api-error.js.map