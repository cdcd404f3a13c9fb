import { PRESENCE_LIMITS } from './presence-limits.ts';
import { friendsError } from '../friends-errors.ts';

/** Longest id accepted; objectIds are far shorter, and anything longer cannot match a user. */
const MAX_ID_LENGTH = 64;

/**
 * The `ids` parameter of GET rich-presence/users: `a,b` (older docs), `{a,b}` (newest doc and the
 * C# SDK) or a JSON array; order and duplicates are kept, since the answer has one entry per id
 * in request order (the SDK zips it with its list).
 */
export function parseIdsParam(raw: unknown): string[] {
  let list: unknown[];
  if (Array.isArray(raw)) list = raw;
  else if (typeof raw === 'string') {
    const inner = raw.trim().replace(/^[{[]/, '').replace(/[}\]]$/, '');
    list = inner === '' ? [] : inner.split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1'));
  } else list = [];
  if (list.length === 0) throw friendsError('presenceInvalidRequest', 'Invalid rich presence request: ids is required (ids=id1,id2 or ids={id1,id2}).');
  if (list.length > PRESENCE_LIMITS.maxIds) throw friendsError('presenceTooManyIds', `Too many ids: ${list.length} given, at most ${PRESENCE_LIMITS.maxIds} per request.`);
  return list.map((id, i) => {
    if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH || !/^[A-Za-z0-9_-]+$/.test(id)) {
      throw friendsError('presenceInvalidRequest', `Invalid rich presence request: ids[${i}] is not a user id.`);
    }
    return id;
  });
}
