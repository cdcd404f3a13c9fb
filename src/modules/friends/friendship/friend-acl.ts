import type { Acl } from '../../../module-api/data.ts';
import type { FriendshipAclMode } from '../friends-settings.ts';

/**
 * The ACL of a friendship row owned by `owner` about `other` (§7.1, console option
 * friendshipACL). The owner always reads and writes its row; shared adds read for the other
 * user, public adds read for everyone, private adds nothing.
 */
export function friendshipAcl(mode: FriendshipAclMode, owner: string, other: string): Acl {
  const own = { read: true, write: true } as const;
  if (mode === 'public') return { '*': { read: true }, [owner]: own };
  if (mode === 'private') return { [owner]: own };
  return { [owner]: own, [other]: { read: true } };
}

/**
 * The ACL of a friend request. The target must see the requests sent to it whatever the
 * option says (it has to answer them), so "private" still lets the target read; only the
 * requester writes (it may withdraw the request with DELETE /1.1/classes/_FriendshipRequest/<id>).
 */
export function requestAcl(mode: FriendshipAclMode, requester: string, target: string): Acl {
  const base = { [requester]: { read: true, write: true } as const, [target]: { read: true } as const };
  return mode === 'public' ? { '*': { read: true }, ...base } : base;
}

/** rperm/wperm for a stored row, kept sorted like model/acl.ts does. */
export function permsOfAcl(acl: Acl): { rperm: string[]; wperm: string[] } {
  const rperm = Object.entries(acl).filter(([, e]) => e.read).map(([k]) => k).sort();
  const wperm = Object.entries(acl).filter(([, e]) => e.write).map(([k]) => k).sort();
  return { rperm, wperm };
}
