/**
 * The extension points of the write pipeline (docs/architecture.md, "Write pipeline"). Every
 * write path (REST create/update/delete, conditional writes, batch, batch/save, users, roles,
 * module rows) runs validate -> permissions -> BEFORE -> SQL -> AFTER (after commit) ->
 * response, and the two extension points below are the only places where cloud-code hooks,
 * LiveQuery and the like attach. Extensions are registered per app (`app.writes`), never as
 * module globals, and declare per class and operation what they need, so that a write no
 * extension asked about does no extra work and no extra SQL. The types are generic in the request
 * context; extensions use the aliases of write-extension-api.ts.
 */

/** The operation a write performs. `login` is a `_User` session being handed out. */
export type WriteKind = 'create' | 'update' | 'delete' | 'login';

/**
 * Where a write comes from. `api`: a client request (REST, batch, batch/save, users, roles).
 * `module`: rows an optional module writes on a client's behalf (friendships). `internal`: the
 * server's own changes of `_User` rows (token rotation, password reset, verification flags:
 * users/user-row-changes.ts; LeanCloud runs no hooks for those). `import` and `sync`: `larder
 * import` / `larder sync` (LeanCloud runs no hooks for those).
 */
export type WriteSource = 'api' | 'module' | 'internal' | 'import' | 'sync';

/** What an extension wants to see of one kind of write (all false when absent). */
export interface WriteInterest {
  /** Call `before` (it may replace the object or veto). Not offered for module rows. */
  readonly before?: boolean;
  /** Call `after` once the write is committed. */
  readonly after?: boolean;
  /**
   * Also give the stored object as it was BEFORE an update (`before.stored` and
   * `event.previous`). Costs a row read in the update statement, so only ask when needed.
   * Deletes always carry it (it is the object being deleted).
   */
  readonly previous?: boolean;
}

/** Body keys SDKs send as request flags, taken out of the object before it is stored. */
export interface WriteFlags {
  /** `__ignore_hooks`: names of hooks to skip. Honour only with the master key or hook key. */
  readonly __ignore_hooks?: unknown;
  /** Legacy signed hook skips (`<ts>,<hex HMAC-SHA1(masterKey, ...)>`). */
  readonly __before?: unknown;
  readonly __after?: unknown;
}

/** The REST JSON of an object: its fields in wire form plus objectId, createdAt, updatedAt, ACL. */
export type RestObject = Record<string, unknown>;

/**
 * One write about to run, as a `before` extension sees it. `C` is the request context
 * (RequestContext; generic so that the per-app registry does not depend on it).
 */
export interface BeforeWriteOf<C> {
  /** The request: its app, keys (`master`), session, and `principal()` for the current user. */
  readonly ctx: C;
  readonly className: string;
  readonly op: WriteKind;
  readonly source: WriteSource;
  /** Absent on create (the id is chosen when the row is built). */
  readonly objectId?: string;
  /**
   * create/update: the body as the client sent it (wire JSON, flags removed; updates carry
   * their `__op` values). login: the user's REST JSON. delete: the stored object.
   */
  readonly object: RestObject;
  /** update: the keys the body changes (LeanEngine's `_updatedKeys`). */
  readonly updatedKeys?: readonly string[];
  /** update with `previous` asked for, and delete: the object as stored (ACL included). */
  readonly stored?: RestObject;
  readonly flags: WriteFlags;
}

/**
 * What a `before` extension answers: nothing to let the write go on unchanged, or an object
 * whose fields replace the body (create/update only; it is validated like a client body, so
 * server fields stay protected). To refuse the write, throw an ApiError: the client gets it
 * and nothing is written (in a batch, only that item fails).
 */
export type BeforeResult = void | undefined | { readonly replace: RestObject };

/** One committed write, as an `after` extension sees it (`C`: the request context). */
export interface WriteEventOf<C> {
  readonly ctx: C;
  readonly className: string;
  readonly op: WriteKind;
  readonly source: WriteSource;
  readonly objectId: string;
  /** create/update/login: the object as stored now (REST JSON with ACL; hidden fields included). */
  readonly object?: RestObject;
  /** delete: the deleted object; update: the object before, when `previous` was asked for. */
  readonly previous?: RestObject;
  /** update: the top-level keys the write changed (LiveQuery `updatedKeys`). */
  readonly updatedKeys?: readonly string[];
  readonly flags: WriteFlags;
}

/**
 * A write extension. `interest` is asked once per (class, op, source) and the answer cached
 * until `app.writes.changed()` is called (e.g. after the hook list was refreshed), so it may do
 * some work but must not depend on the request.
 */
export interface WriteExtensionOf<C> {
  /** Shown in logs when an `after` call fails. */
  readonly name: string;
  interest(className: string, op: WriteKind, source: WriteSource): WriteInterest | undefined;
  /** Runs before the SQL, outside any transaction (it may take time, e.g. an HTTP call). */
  before?(write: BeforeWriteOf<C>): Promise<BeforeResult> | BeforeResult;
  /**
   * Runs after the commit, in commit order, and never fails the request: a thrown error or a
   * rejected promise is logged. It is not awaited; do slow work asynchronously.
   */
  after?(event: WriteEventOf<C>): void | Promise<void>;
}
