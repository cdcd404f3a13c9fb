import { sql, type Sql } from '../sql/fragment.ts';

/** The write-permission clause: TRUE for the master key, else `wperm && principals`. */
export function writeAclClause(writers: readonly string[] | null): Sql {
  return writers === null ? sql`TRUE` : sql`wperm && ${writers}::text[]`;
}
