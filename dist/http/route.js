/** Shorthand for a 200 JSON response. */
export function ok(body, status = 200, headers) {
    return { status, body, headers };
}
//# sourceMappingURL=route.js.map