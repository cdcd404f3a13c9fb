/**
 * PUT /1.1/users/<id> (and /1.1/classes/_User/<id>): the user itself or the master key only
 * (206 otherwise, whatever the ACL). One transaction holds the row lock while it applies the
 * generic field operations, the user fields and the authData links, so nothing is half-written:
 *   - a new username, email or phone that another user has is 202/203/214;
 *   - a new email sets emailVerified false (verification on) and mails after the commit;
 *     a new phone number sets mobilePhoneVerified false;
 *   - `password` may be set by the master key, or by the user itself while it has none (an
 *     anonymous or authData user choosing one); changing an existing password takes
 *     updatePassword (117 here);
 *   - authData links merge per platform (208 when the account is someone else's) and unlink
 *     with Delete; linking a real platform or getting a password ends anonymity.
 */
import type { RequestContext } from '../app-context.ts';
import { checkAddFields, checkClassPermission } from '../auth/class-permissions.ts';
import { ApiError } from '../errors/api-error.ts';
import { permsOf } from '../model/acl.ts';
import type { WireObject } from '../objects/encode.ts';
import { changedKeys, compileUpdate, typesOf } from '../objects/field-operations.ts';
import { OBJECT_COLUMNS, type ObjectRow } from '../objects/object-row.ts';
import { restObjectOf, splitWriteBody, storedObject } from '../objects/write-body.ts';
import type { ParsedWrite } from '../model/write-ops.ts';
import { runWrite, type Committed } from '../writes/run-write.ts';
import type { WriteEvent } from '../writes/write-extension-api.ts';
import type { WriteNeeds } from '../writes/write-extensions.ts';
import { parseWriteBody } from '../objects/parse-write.ts';
import { applyRelationChanges } from '../objects/relation-rows.ts';
import { toIso } from '../objects/timestamps.ts';
import type { WriteOp } from '../model/write-ops.ts';
import { hiddenFields } from '../schema/hidden-fields.ts';
import { sql, type Sql } from '../sql/fragment.ts';
import { bindAccounts, unbindAccounts } from './auth-bindings.ts';
import { claimable } from './auth-data-login.ts';
import { mergeAuthData } from './auth-data-merge.ts';
import { verifyAuthData } from './auth-data-verifier.ts';
import { afterEmailSet, emailVerifiedOnSet } from './email-hooks.ts';
import { hashPassword, isPasswordSet } from './password.ts';
import { mappingUniqueViolations } from './unique-violation.ts';
import { assertOwnUserOrMaster } from './user-access.ts';
import { splitUserBody, type UserBody } from './user-fields.ts';
import { findUserById, USER_TABLE } from './user-store.ts';
import { compileUserWriteWhere } from './user-write-where.ts';

/** The outcome: updatedAt and the fields the write changed (for fetchWhenSave / new=true). */
export interface UserUpdated {
  readonly updatedAt: string;
  readonly changed: WireObject;
}

const set = (field: string, value: unknown): WriteOp => ({ kind: 'set', path: [field], value });
const remove = (field: string): WriteOp => ({ kind: 'delete', path: [field] });

/** The operations on the user fields, decided against the locked row. */
function userFieldOps(ctx: RequestContext, row: ObjectRow, user: UserBody, hashed: string | undefined): { ops: WriteOp[]; emailChanged: boolean } {
  const ops: WriteOp[] = [];
  let emailChanged = false;
  if (user.username !== undefined) ops.push(set('username', user.username));
  if (hashed !== undefined) {
    if (!ctx.master && isPasswordSet(row.data)) {
      throw new ApiError('readOnlyKey', "The password of a user who has one can only be changed with PUT /1.1/users/<id>/updatePassword (or the master key).");
    }
    ops.push(set('password', hashed), remove('salt'));
  }
  if (user.email === null) ops.push(remove('email'));
  else if (user.email !== undefined) {
    ops.push(set('email', user.email));
    if (user.email !== row.data.email) {
      emailChanged = true;
      const verified = emailVerifiedOnSet(ctx.app, 'update');
      if (verified !== undefined) ops.push(set('emailVerified', verified));
    }
  }
  if (user.mobilePhoneNumber === null) ops.push(remove('mobilePhoneNumber'));
  else if (user.mobilePhoneNumber !== undefined) {
    ops.push(set('mobilePhoneNumber', user.mobilePhoneNumber));
    if (user.mobilePhoneNumber !== row.data.mobilePhoneNumber) ops.push(set('mobilePhoneVerified', false));
  }
  for (const [k, v] of Object.entries(user.verifiedFlags)) ops.push(set(k, v));
  return { ops, emailChanged };
}

/** A user update that passed validation and permissions. */
interface CheckedUserUpdate {
  readonly user: UserBody;
  readonly parsed: ParsedWrite;
  readonly where?: Sql;
  readonly claim: Awaited<ReturnType<typeof claimable>>;
  readonly hashed?: string;
}

/** Validation and permissions of a user update (the pipeline's first stages). */
async function checkUserUpdate(ctx: RequestContext, objectId: string, body: unknown, opts: { where?: unknown }): Promise<CheckedUserUpdate> {
  const { app } = ctx;
  await assertOwnUserOrMaster(ctx, objectId);
  await checkClassPermission(ctx, '_User', 'update');
  const user = splitUserBody(body, { mode: 'update', master: ctx.master });
  const parsed = parseWriteBody(user.rest, 'update');
  const schema = await app.classes.find('_User');
  if (!schema) throw new ApiError('classNotFound');
  await checkAddFields(ctx, schema, parsed.ops);
  let where: Sql | undefined;
  if (opts.where !== undefined) {
    // `_User` ignores ACLs for writes: no ACL on the row, but the caller's limits elsewhere.
    where = await compileUserWriteWhere(ctx, schema, opts.where);
  }
  const authChange = user.authDataChange;
  if (authChange?.link.length) await verifyAuthData(app, authChange.link);
  const claim = authChange ? await claimable(ctx, authChange.link, objectId) : [];
  const hashed = user.password === undefined ? undefined : await hashPassword(user.password);
  return { user, parsed, where, claim, hashed };
}

/** The SQL stage: one transaction holding the row lock (the locked row is the `previous` image). */
async function commitUserUpdate(ctx: RequestContext, objectId: string, checked: CheckedUserUpdate, needs: WriteNeeds): Promise<Committed<UserUpdated>> {
  const { app } = ctx;
  const { user, parsed, where, claim, hashed } = checked;
  const authChange = user.authDataChange;
  const now = new Date().toISOString();

  const result = await mappingUniqueViolations(() =>
    app.db.transaction(async (tx) => {
      const row = await findUserById(tx, objectId, true);
      if (!row) throw new ApiError('userNotFound');
      if (where) {
        const hit = await tx.query(sql`SELECT 1 FROM ${USER_TABLE} WHERE "objectId" = ${objectId} AND ${where}`);
        if (!hit.length) throw new ApiError('noEffect');
      }
      const previous = needs.previous ? restObjectOf('_User', row) : undefined;
      const fields = userFieldOps(ctx, row, user, hashed);
      const ops: WriteOp[] = [...parsed.ops, ...fields.ops];
      if (authChange || hashed !== undefined) {
        const merged = mergeAuthData(row.data.authData, {
          link: authChange?.link ?? [],
          unlink: authChange?.unlink ?? [],
          claim,
          gainsPassword: hashed !== undefined,
        });
        if (authChange || merged.leftAnonymous) {
          ops.push(set('authData', merged.doc));
          await unbindAccounts(tx, objectId, merged.unbind);
          await bindAccounts(tx, objectId, merged.bind);
        }
      }
      const s = await app.classes.lockFields(tx, '_User', typesOf(ops));
      const update = compileUpdate(ops);
      let setAcl: Sql = sql``;
      if (parsed.acl) {
        const { rperm, wperm } = permsOf(parsed.acl);
        setAcl = sql`, acl = ${JSON.stringify(parsed.acl)}::jsonb, rperm = ${rperm}::text[], wperm = ${wperm}::text[]`;
      }
      const rows = await tx.query<ObjectRow>(sql`UPDATE ${USER_TABLE}
        SET data = ${update.data}, "updatedAt" = ${now}::timestamptz${setAcl}
        WHERE "objectId" = ${objectId} RETURNING ${OBJECT_COLUMNS}`);
      await applyRelationChanges(tx, '_User', objectId, update.relations);
      return { row: rows[0], ops, schema: s, emailChanged: fields.emailChanged, previous };
    }),
  );
  app.classes.publish(result.schema);
  const data = result.row.data;
  if (result.emailChanged && typeof data.email === 'string') {
    await afterEmailSet(app, { objectId, email: data.email, username: typeof data.username === 'string' ? data.username : undefined });
  }
  const hidden = new Set(hiddenFields('_User'));
  const changed: WireObject = {};
  const keys = changedKeys(result.ops);
  for (const k of keys) {
    if ((!hidden.has(k) || k === 'authData') && Object.hasOwn(data, k)) changed[k] = data[k];
  }
  if (parsed.acl) changed.ACL = parsed.acl;
  const updated: UserUpdated = { updatedAt: toIso(result.row.updatedAt), changed };
  if (!needs.after) return { result: updated };
  const event: WriteEvent = {
    ctx, className: '_User', op: 'update', source: 'api', objectId,
    object: restObjectOf('_User', result.row),
    previous: result.previous,
    updatedKeys: [...new Set(result.ops.map((op) => op.path[0]))].concat(parsed.acl ? ['ACL'] : []),
    flags: parsed.flags,
  };
  return { result: updated, events: [event] };
}

/** Updates a user through the write pipeline; see the file comment for the rules. */
export function updateUser(ctx: RequestContext, objectId: string, body: unknown, opts: { where?: unknown } = {}): Promise<UserUpdated> {
  return runWrite(ctx, {
    className: '_User',
    op: 'update',
    objectId,
    body,
    split: splitWriteBody,
    check: (b) => checkUserUpdate(ctx, objectId, b, opts),
    stored: () => storedObject(ctx, '_User', objectId),
    commit: (checked, needs) => commitUserUpdate(ctx, objectId, checked, needs),
  });
}
