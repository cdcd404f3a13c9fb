import { CREATOR_KEY } from '../auth/default-acl.js';
import { parseAcl } from '../objects/acl.js';
/** The default ACL of the user `userId`. */
export async function defaultUserAcl(app, userId) {
    const { defaultAcl } = await app.classes.security('_User');
    if (!defaultAcl)
        return { '*': { read: true }, [userId]: { read: true, write: true } };
    const configured = parseAcl(defaultAcl);
    const { [CREATOR_KEY]: creator, ...rest } = configured;
    if (!creator)
        return rest;
    const merged = {
        ...(creator.read || rest[userId]?.read ? { read: true } : {}),
        ...(creator.write || rest[userId]?.write ? { write: true } : {}),
    };
    return { ...rest, [userId]: merged };
}
//# sourceMappingURL=user-acl.js.map