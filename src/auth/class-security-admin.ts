/**
 * Reading and changing a class's permissions and default ACL (master key: admin endpoint and
 * CLI). Changes are stored in `_larder_classes` and dropped from every process's cache.
 */
import { ApiError } from '../errors/api-error.ts';
import { parseAcl, type Acl } from '../model/acl.ts';
import { effectivePermissions, parsePermissions, type ClassOperation, type PermissionRule } from '../schema/class-security.ts';
import { checkClassName } from '../model/names.ts';
import { sql } from '../sql/fragment.ts';
import { invalidateClassSecurity, type AppState } from './cache-invalidation.ts';

async function existing(app: AppState, className: string): Promise<string> {
  const name = checkClassName(className);
  if (!(await app.classes.find(name))) throw new ApiError('classNotFound', `Class ${name} does not exist.`);
  return name;
}

/** Creates the class if needed, so permissions can be set before clients write to it. */
async function ensured(app: AppState, className: string): Promise<string> {
  const name = checkClassName(className);
  if (await app.classes.find(name)) return name;
  await app.db.transaction((tx) => app.classes.ensureClass(tx, name));
  app.classes.forget(name);
  return name;
}

/** The six permissions of a class, defaults filled in. */
export async function getClassPermissions(app: AppState, className: string): Promise<Record<ClassOperation, PermissionRule>> {
  const name = await existing(app, className);
  app.classes.forgetSecurity(name);
  return effectivePermissions(name, (await app.classes.security(name)).permissions);
}

/**
 * Changes some of a class's permissions: the operations given replace their rules, the others
 * keep theirs (so forgetting `find` in a change can never open `_User` queries by accident).
 */
export async function setClassPermissions(app: AppState, className: string, change: unknown): Promise<Record<ClassOperation, PermissionRule>> {
  const permissions = parsePermissions(change);
  const name = await ensured(app, className);
  await app.db.query(sql`UPDATE _larder_classes SET permissions = COALESCE(permissions, '{}'::jsonb) || ${JSON.stringify(permissions)}::jsonb WHERE name = ${name}`);
  await invalidateClassSecurity(app, name);
  return effectivePermissions(name, (await app.classes.security(name)).permissions);
}

/** The configured default ACL of a class, or null (LeanCloud's public default applies). */
export async function getDefaultAcl(app: AppState, className: string): Promise<Acl | null> {
  const name = await existing(app, className);
  app.classes.forgetSecurity(name);
  const { defaultAcl } = await app.classes.security(name);
  return defaultAcl ? parseAcl(defaultAcl) : null;
}

/** Sets (an ACL, validated as any ACL; `creator` = the creating user) or clears (null) it. */
export async function setDefaultAcl(app: AppState, className: string, value: unknown): Promise<Acl | null> {
  const acl = value === null ? null : parseAcl(value);
  const name = await ensured(app, className);
  await app.db.query(sql`UPDATE _larder_classes SET default_acl = ${acl === null ? null : JSON.stringify(acl)}::jsonb WHERE name = ${name}`);
  await invalidateClassSecurity(app, name);
  return acl;
}
