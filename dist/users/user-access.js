import { ApiError } from '../errors/api-error.js';
/** Throws 206/403 unless the caller is the master key or the user `objectId` itself. */
export async function assertOwnUserOrMaster(ctx, objectId) {
    if (ctx.master)
        return;
    const who = await ctx.principal();
    if (who.userId !== objectId)
        throw new ApiError('sessionRequired');
}
//# sourceMappingURL=user-access.js.map