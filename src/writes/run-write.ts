/**
 * The write pipeline: validate -> permissions -> before extensions -> SQL -> after extensions
 * (after the commit) -> response. Each write path supplies its own stages (what validating and
 * committing mean for a plain object, a user or a role) and this file runs them in that order,
 * so hooks and events attach to every path in exactly one place. Paths that write several
 * objects at once (batch creates, multi-id deletes, friendships) use the stage functions
 * `beforeStage` and `afterStage` directly, once per object.
 */
import type { RequestContext } from '../app-context.ts';
import type { BeforeWrite, RestObject, WriteEvent, WriteFlags, WriteSource } from './write-extension-api.ts';
import type { WriteNeeds } from './write-extensions.ts';
import { sameBody } from './same-body.ts';

/** What a committed write hands back: the use-case's result, and events when asked for. */
export interface Committed<R> {
  readonly result: R;
  /** Built only when `needs.after` (see WriteNeeds); ignored otherwise. */
  readonly events?: readonly WriteEvent[];
}

/** The stages of one create or update (or single delete) of one object. */
export interface WriteSteps<V, R> {
  readonly className: string;
  readonly op: 'create' | 'update' | 'delete';
  readonly source?: WriteSource;
  /** update/delete: the object written. */
  readonly objectId?: string;
  /** create/update: the body as the client sent it. */
  readonly body?: unknown;
  /**
   * The body as before extensions see it: the object (request flags removed) and the flags.
   * Called only when an extension asked for this write (objects/write-body.ts splits bodies).
   */
  split?(body: unknown): { object: RestObject; flags: WriteFlags };
  /** Validation and permissions: a body in, the typed write out. Runs again on a replaced body. */
  check(body: unknown): Promise<V>;
  /**
   * What `check` would make of a replacement body equal to the body `write` was checked from
   * (same-body.ts: a before extension that changed nothing), without checking it again: `write`
   * with what depends on the moment brought up to date (a create's timestamp, taken after the
   * hook as the second check takes it). Without it every replacement is checked again.
   */
  unchanged?(write: V): V;
  /** The stored object (REST JSON), for before extensions of deletes and of updates asking `previous`. */
  stored?(): Promise<RestObject | undefined>;
  /** The SQL (one statement or one transaction). Builds `events` only when `needs.after`. */
  commit(write: V, needs: WriteNeeds): Promise<Committed<R>>;
}

/** Keys a before extension's replacement cannot write: the server sets them. */
const SERVER_KEYS = new Set(['objectId', 'createdAt', 'updatedAt', 'className', '__type', '_updatedKeys']);

/** A replacement object as a write body: server-set keys dropped, flags of the request kept. */
function bodyOfReplacement(replacement: RestObject, flags: WriteFlags): Record<string, unknown> {
  const out: Record<string, unknown> = { ...flags };
  for (const [k, v] of Object.entries(replacement)) if (!SERVER_KEYS.has(k)) out[k] = v;
  return out;
}

/**
 * Runs the before extensions of one write. Returns the replacement body (validated by the
 * caller again), or undefined when the write goes on as sent. An extension's ApiError refuses it.
 */
export async function beforeStage(write: BeforeWrite): Promise<Record<string, unknown> | undefined> {
  const replaced = await write.ctx.app.writes.before(write);
  return replaced ? bodyOfReplacement(replaced, write.flags) : undefined;
}

/** Hands committed writes to the after extensions (never throws, never waits). */
export function afterStage(ctx: RequestContext, events: readonly WriteEvent[] | undefined): void {
  if (events?.length) ctx.app.writes.after(events);
}

/** Runs one write through the pipeline and returns the use-case's result. */
export async function runWrite<V, R>(ctx: RequestContext, steps: WriteSteps<V, R>): Promise<R> {
  const source = steps.source ?? 'api';
  const needs = ctx.app.writes.needs(steps.className, steps.op, source);
  let write: V = await steps.check(steps.body);
  if (needs.before) {
    const parts = steps.split?.(steps.body);
    const flags = parts?.flags ?? {};
    const object = steps.op === 'delete' ? undefined : parts?.object;
    const stored = steps.op === 'delete' || needs.previous ? await steps.stored?.() : undefined;
    if (steps.op === 'delete' && !stored) {
      // Nothing to delete: the commit stage answers as it would without extensions.
    } else {
      const replaced = await beforeStage({
        ctx,
        className: steps.className,
        op: steps.op,
        source,
        objectId: steps.objectId,
        object: object ?? stored ?? {},
        updatedKeys: steps.op === 'update' && object ? Object.keys(object) : undefined,
        stored,
        flags,
      });
      if (replaced && steps.op !== 'delete') write = steps.unchanged && sameBody(replaced, steps.body) ? steps.unchanged(write) : await steps.check(replaced);
    }
  }
  const committed = await steps.commit(write, needs);
  if (needs.after) afterStage(ctx, committed.events);
  return committed.result;
}
