/** The app's current time for expiring secrets. */
export function nowOf(app) {
    return app.clock ? app.clock() : new Date();
}
/** ACL principals for queries: null means "no ACL filter" (master key). */
export async function readersOf(ctx) {
    const p = await ctx.principal();
    return p.master ? null : p.readers;
}
//# sourceMappingURL=app-context.js.map