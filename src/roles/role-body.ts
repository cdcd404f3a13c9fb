/**
 * The rules a `_Role` write body must follow beyond those of any object (spec: Role): a name of
 * letters, digits and underscore (139), an ACL on create, and `users` / `roles` that change only
 * through AddRelation / RemoveRelation of `_User` / `_Role` pointers. Membership lives in the
 * join table and is read by principal resolution, so these two fields are the only way a role
 * grants anything; keeping them this strict is what makes role escalation impossible.
 */
import { ApiError } from '../errors/api-error.ts';
import { parseWriteBody } from '../objects/parse-write.ts';
import type { ParsedWrite, WriteMode } from '../model/write-ops.ts';
import { ROLE_NAME } from '../model/role-name.ts';

/** The relation fields of a role and the class each must point to. */
export const ROLE_RELATIONS: Readonly<Record<string, string>> = Object.freeze({ users: '_User', roles: '_Role' });

/** The value a role's relation field holds in the document (what a GET returns). */
export function relationMarker(className: string): { __type: 'Relation'; className: string } {
  return { __type: 'Relation', className };
}

/** Validates a role name (139 when missing, not a string, or outside [A-Za-z0-9_]). */
export function checkRoleName(v: unknown): string {
  if (typeof v !== 'string' || !ROLE_NAME.test(v)) {
    const shown = typeof v === 'string' ? JSON.stringify(v.slice(0, 64)) : v === undefined ? 'missing' : 'not a string';
    throw new ApiError('invalidRoleName', `Role's name is invalid: ${shown}. A role needs a name of 1 to 128 letters, digits and underscores.`);
  }
  return v;
}

function isMarker(v: unknown, className: string): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return m.__type === 'Relation' && m.className === className && Object.keys(m).length === 2;
}

/** A parsed role body and whether it changes membership (so caches must be dropped). */
export interface RoleWrite {
  readonly parsed: ParsedWrite;
  readonly changesMembership: boolean;
}

/**
 * Parses a role body with the generic rules, then the role rules on `users` / `roles`. The
 * `name` key is left to the caller (required on create, immutable on update).
 */
export function parseRoleBody(body: unknown, mode: WriteMode): RoleWrite {
  const parsed = parseWriteBody(body, mode);
  let changesMembership = false;
  for (const op of parsed.ops) {
    const field = op.path[0];
    const target = Object.hasOwn(ROLE_RELATIONS, field) ? ROLE_RELATIONS[field] : undefined;
    if (target === undefined) continue;
    if (op.path.length > 1) throw new ApiError('invalidRelation', `Invalid relation data: '${op.path.join('.')}' is not a field of a role.`);
    if (op.kind === 'relation') {
      if (op.className !== target) {
        throw new ApiError('invalidRelation', `Invalid relation data for '${field}': a role's ${field} relation holds ${target} pointers, not ${op.className}.`);
      }
      changesMembership ||= op.add.length > 0 || op.remove.length > 0;
      continue;
    }
    // Re-sending the marker itself (some SDKs echo fetched fields) changes nothing.
    if (op.kind === 'set' && isMarker(op.value, target)) continue;
    throw new ApiError('invalidRelation', `Invalid relation data for '${field}': a role's ${field} change only with AddRelation or RemoveRelation of ${target} pointers.`);
  }
  return { parsed, changesMembership };
}
