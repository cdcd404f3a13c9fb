/**
 * The ACL of a new user when the sign-up body gives none: everyone may read it, only the user
 * itself may write it: `{"*":{"read":true},"<id>":{"read":true,"write":true}}`. LeanCloud's
 * default is not documented (leancloud-behaviour §3.3); this is the console's "restrict write"
 * preset with the user as its own owner, and what Parse does. Writes to `_User` ignore ACLs
 * anyway (only the user itself or the master key may change a user), so the ACL decides reads.
 * A default ACL configured for `_User` by the operator wins, with `creator` meaning the new user.
 */
import type { AppContext } from '../app-context.ts';
import { CREATOR_KEY } from '../auth/default-acl.ts';
import { parseAcl, type Acl, type AclEntry } from '../model/acl.ts';

/** The default ACL of the user `userId`. */
export async function defaultUserAcl(app: AppContext, userId: string): Promise<Acl> {
  const { defaultAcl } = await app.classes.security('_User');
  if (!defaultAcl) return { '*': { read: true }, [userId]: { read: true, write: true } };
  const configured = parseAcl(defaultAcl);
  const { [CREATOR_KEY]: creator, ...rest } = configured;
  if (!creator) return rest;
  const merged: AclEntry = {
    ...(creator.read || rest[userId]?.read ? { read: true as const } : {}),
    ...(creator.write || rest[userId]?.write ? { write: true as const } : {}),
  };
  return { ...rest, [userId]: merged };
}
