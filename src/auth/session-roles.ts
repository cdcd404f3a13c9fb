import { sql } from '../sql/fragment.ts';
import type { Queryable } from '../storage/database.ts';

/** A valid session: its user and the names of every role the user holds (inherited ones too). */
export interface SessionRoles {
  readonly userId: string;
  readonly roles: readonly string[];
}

/**
 * Looks a session token up and expands the user's roles in ONE statement: a recursive CTE over
 * `_larder_relations`. Role R holds user U when (owner _Role R, key users, target U); role P
 * has child role C when (owner _Role P, key roles, target C), and whoever holds C also holds P.
 * UNION (not UNION ALL) drops rows already found, so cycles of roles terminate; depth is not
 * limited. Uses the `_User` sessionToken index and the partial index on role members.
 */
export async function lookupSession(q: Queryable, token: string): Promise<SessionRoles | undefined> {
  const rows = await q.query<{ userId: string; roles: string[] | null }>(sql`
    WITH RECURSIVE u AS (
      SELECT "objectId" AS id FROM "_User" WHERE data->>'sessionToken' = ${token} LIMIT 1
    ), r(id) AS (
      SELECT m.owner_id FROM _larder_relations m JOIN u ON m.target_id = u.id
       WHERE m.owner_class = '_Role' AND m.key = 'users' AND m.target_class = '_User'
      UNION
      SELECT p.owner_id FROM _larder_relations p JOIN r ON p.target_id = r.id
       WHERE p.owner_class = '_Role' AND p.key = 'roles' AND p.target_class = '_Role'
    )
    SELECT u.id AS "userId",
      (SELECT array_agg(DISTINCT role.data->>'name' ORDER BY role.data->>'name') FROM "_Role" role
        WHERE role."objectId" IN (SELECT id FROM r) AND role.data->>'name' IS NOT NULL) AS roles
    FROM u`);
  const row = rows[0];
  if (!row) return undefined;
  return { userId: row.userId, roles: row.roles ?? [] };
}
