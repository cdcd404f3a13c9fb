/**
 * Creates one `_User`: the sign-up of POST /1.1/users, of authData login for a new account, and
 * of `usersByMobilePhone` (mail/SMS flows). The user row, its platform bindings and any relation
 * rows are written in one transaction; username, email, phone and platform accounts are unique by
 * index, so a duplicate (also a concurrent one) is 202/203/214/208 and nothing is written.
 */
import type { RequestContext } from '../app-context.ts';
import { checkAddFields, checkClassPermission } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { permsOf } from '../model/acl.ts';
import { applyOnCreate, typesOf } from '../objects/field-operations.ts';
import { newObjectId } from '../model/object-id.ts';
import type { ObjectRow } from '../objects/object-row.ts';
import { parseWriteBody } from '../objects/parse-write.ts';
import { applyRelationChanges } from '../objects/relation-rows.ts';
import type { WriteOp } from '../model/write-ops.ts';
import { sql } from '../sql/fragment.ts';
import { ANONYMOUS, unionKey, type AuthEntry } from './auth-data.ts';
import { bindAccounts, type Binding } from './auth-bindings.ts';
import { afterEmailSet, emailVerifiedOnSet } from './email-hooks.ts';
import { hashPassword } from './password.ts';
import { newSessionToken, randomUsername } from './session-token.ts';
import { mappingUniqueViolations } from './unique-violation.ts';
import { defaultUserAcl } from './user-acl.ts';
import { splitUserBody, type UserBody } from './user-fields.ts';
import { restObjectOf, splitWriteBody } from '../objects/write-body.ts';
import type { ParsedWrite } from '../model/write-ops.ts';
import { runWrite, type Committed } from '../writes/run-write.ts';
import type { WriteEvent } from '../writes/write-extension-api.ts';
import type { WriteNeeds } from '../writes/write-extensions.ts';
import { USER_TABLE } from './user-store.ts';

/** Options of createUser. */
export interface CreateUserOptions {
  /** Give a random username when the body has none (authData and anonymous sign-ups). */
  generateUsername?: boolean;
  /**
   * Fields only the server sets, written as given (e.g. `mobilePhoneVerified: true` after an
   * SMS code was checked). Never pass client input here.
   */
  serverFields?: Readonly<Record<string, unknown>>;
  /** Union bindings to claim (`_<platform>_unionid`), decided by the authData login. */
  claimUnions?: readonly AuthEntry[];
}

/** The created user: its row as stored and its session token. */
export interface CreatedUser {
  readonly row: ObjectRow;
  readonly sessionToken: string;
}

const set = (field: string, value: unknown): WriteOp => ({ kind: 'set', path: [field], value });

/** The authData document and the bindings of a set of platform entries (plus claimed unions). */
export function authDataOf(entries: readonly AuthEntry[], unions: readonly AuthEntry[]): { doc: Record<string, unknown>; bindings: Binding[] } {
  const doc: Record<string, unknown> = {};
  const bindings: Binding[] = [];
  for (const e of entries) {
    doc[e.platform] = e.data;
    bindings.push({ platform: e.platform, uid: e.uid });
  }
  for (const e of unions) {
    if (!e.union) continue;
    const key = unionKey(e.union.platform);
    doc[key] = { uid: e.union.unionid };
    bindings.push({ platform: key, uid: e.union.unionid });
  }
  return { doc, bindings };
}

/**
 * Creates a user from a sign-up body (wire form), through the write pipeline. `username` is
 * required (200) unless `generateUsername`; the password is optional here (the sign-up route
 * requires it).
 */
export function createUser(ctx: RequestContext, body: unknown, opts: CreateUserOptions = {}): Promise<CreatedUser> {
  return runWrite(ctx, {
    className: '_User',
    op: 'create',
    body,
    split: splitWriteBody,
    check: (b) => checkCreate(ctx, b, opts),
    commit: (checked, needs) => commitCreate(ctx, checked, opts, needs),
  });
}

/** A sign-up that passed validation and permissions. */
interface CheckedSignUp {
  readonly user: UserBody;
  readonly username: string;
  readonly parsed: ParsedWrite;
}

/** Validation and permissions of a sign-up (the pipeline's first stages). */
async function checkCreate(ctx: RequestContext, body: unknown, opts: CreateUserOptions): Promise<CheckedSignUp> {
  await checkClassPermission(ctx, '_User', 'create');
  const user = splitUserBody(body, { mode: 'create', master: ctx.master });
  const username = user.username ?? (opts.generateUsername ? randomUsername() : undefined);
  if (username === undefined) throw new ApiError('usernameMissing');
  const parsed = parseWriteBody(user.rest, 'create');
  await checkAddFields(ctx, await ctx.app.classes.find('_User'), parsed.ops);
  return { user, username, parsed };
}

/** The SQL stage of a sign-up: the row, its bindings and relations in one transaction. */
async function commitCreate(ctx: RequestContext, checked: CheckedSignUp, opts: CreateUserOptions, needs: WriteNeeds): Promise<Committed<CreatedUser>> {
  const { app } = ctx;
  const { user, username, parsed } = checked;
  const objectId = newObjectId();
  const sessionToken = newSessionToken();
  const now = new Date().toISOString();
  const acl = parsed.acl ?? (await defaultUserAcl(app, objectId));
  const { rperm, wperm } = permsOf(acl);
  const ops: WriteOp[] = [...parsed.ops, set('username', username), set('sessionToken', sessionToken)];
  if (user.password !== undefined) ops.push(set('password', await hashPassword(user.password)));
  if (user.email) ops.push(set('email', user.email));
  if (user.mobilePhoneNumber) ops.push(set('mobilePhoneNumber', user.mobilePhoneNumber));
  ops.push(set('emailVerified', user.email ? emailVerifiedOnSet(app, 'create') ?? null : null));
  ops.push(set('mobilePhoneVerified', false));
  for (const [k, v] of Object.entries(user.verifiedFlags)) ops.push(set(k, v));
  // A user with a password is not anonymous, even if the body also carried an anonymous id.
  const entries = (user.authData ?? []).filter((e) => user.password === undefined || e.platform !== ANONYMOUS);
  const { doc, bindings } = authDataOf(entries, opts.claimUnions ?? []);
  if (Object.keys(doc).length) ops.push(set('authData', doc));
  for (const [k, v] of Object.entries(opts.serverFields ?? {})) ops.push(set(k, v));
  // Later sets of one field win (server fields over defaults): keep the last op per field.
  const finalOps = [...new Map(ops.map((op) => [op.path.join('.'), op])).values()];
  const { data, relations } = applyOnCreate(finalOps);
  const types = typesOf(finalOps);

  const schema = await mappingUniqueViolations(() =>
    app.db.transaction(async (tx) => {
      const s = await app.classes.lockFields(tx, '_User', types);
      await tx.query(sql`INSERT INTO ${USER_TABLE} ("objectId", "createdAt", "updatedAt", acl, rperm, wperm, data)
        VALUES (${objectId}, ${now}::timestamptz, ${now}::timestamptz, ${JSON.stringify(acl)}::jsonb, ${rperm}::text[], ${wperm}::text[], ${JSON.stringify(data)}::jsonb)`);
      await bindAccounts(tx, objectId, bindings);
      await applyRelationChanges(tx, '_User', objectId, relations);
      return s;
    }),
  );
  app.classes.publish(schema);
  if (user.email) await afterEmailSet(app, { objectId, email: user.email, username });
  const result: CreatedUser = { row: { objectId, createdAt: now, updatedAt: now, acl, data }, sessionToken };
  if (!needs.after) return { result };
  const event: WriteEvent = { ctx, className: '_User', op: 'create', source: 'api', objectId, object: restObjectOf('_User', result.row), flags: parsed.flags };
  return { result, events: [event] };
}
