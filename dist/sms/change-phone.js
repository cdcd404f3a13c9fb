import { nowOf } from '../app-context.js';
import { ApiError } from '../errors/api-error.js';
import { sql } from '../sql/fragment.js';
import { mappingUniqueViolations } from '../users/unique-violation.js';
import { findUserBy, USER_TABLE } from '../users/user-store.js';
import { changePhonePurpose, consumeChangePhoneCode } from './change-phone-code.js';
import { sendCode, senderOf } from './send-code.js';
import { bodyOf, codeOf, codeRequestOptions, phoneOf } from './sms-params.js';
/** Default validity of a change code, minutes (the JS SDK documents 6). */
export const CHANGE_PHONE_TTL_DEFAULT_MINUTES = 6;
async function sessionUser(ctx, endpoint) {
    const { userId } = await ctx.principal();
    if (!userId)
        throw new ApiError('sessionRequired', `${endpoint} needs the session of a logged-in user (X-LC-Session).`);
    return userId;
}
/** POST /1.1/requestChangePhoneNumber: see the file comment. */
export async function requestChangePhoneNumber(ctx, rawBody) {
    const userId = await sessionUser(ctx, 'requestChangePhoneNumber');
    const body = bodyOf(rawBody);
    const phone = phoneOf(body);
    // Only `ttl` is an option here; the number's flow has no templates or variables.
    const ttl = body.ttl ?? CHANGE_PHONE_TTL_DEFAULT_MINUTES;
    const opts = codeRequestOptions({ ttl });
    senderOf(ctx.app);
    const holder = await findUserBy(ctx.app.db, 'mobilePhoneNumber', phone);
    if (holder && holder.objectId !== userId)
        throw new ApiError('mobilePhoneTaken');
    await sendCode(ctx.app, phone, 'changePhone', opts, true, changePhonePurpose(userId));
    return {};
}
/** POST /1.1/changePhoneNumber: see the file comment. */
export async function changePhoneNumber(ctx, rawBody) {
    const userId = await sessionUser(ctx, 'changePhoneNumber');
    const body = bodyOf(rawBody);
    const phone = phoneOf(body);
    const code = codeOf(body.code);
    const now = nowOf(ctx.app);
    const result = await mappingUniqueViolations(() => ctx.app.db.transaction(async (tx) => {
        // A wrong code returns (the transaction commits its count of wrong guesses), never throws.
        if (!(await consumeChangePhoneCode(tx, userId, phone, code, now)))
            return { error: new ApiError('invalidSmsCode') };
        const rows = await tx.query(sql `UPDATE ${USER_TABLE}
        SET data = data || jsonb_build_object('mobilePhoneNumber', ${phone}::text, 'mobilePhoneVerified', true),
          "updatedAt" = ${now.toISOString()}::timestamptz
        WHERE "objectId" = ${userId} RETURNING "objectId"`);
        if (!rows.length)
            throw new ApiError('userNotFound');
        return {};
    }));
    if (result.error)
        throw result.error;
    return {};
}
//# sourceMappingURL=change-phone.js.map