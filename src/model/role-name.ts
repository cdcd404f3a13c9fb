/**
 * The one rule for role names (spec: Role): 1 to 128 letters, digits and underscores. Shared by
 * role writes (role-body.ts) and class permissions that list roles (schema/class-security.ts).
 */
export const ROLE_NAME = /^[A-Za-z0-9_]{1,128}$/;

/** True for a syntactically valid role name. */
export function isRoleName(v: unknown): v is string {
  return typeof v === 'string' && ROLE_NAME.test(v);
}
