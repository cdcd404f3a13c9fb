import { sql } from '../sql/fragment.js';
/** The write-permission clause: TRUE for the master key, else `wperm && principals`. */
export function writeAclClause(writers) {
    return writers === null ? sql `TRUE` : sql `wperm && ${writers}::text[]`;
}
//# sourceMappingURL=write-acl.js.map