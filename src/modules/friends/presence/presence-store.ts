import type { AppContext } from '../../../module-api/context.ts';
import { sql } from '../../../module-api/data.ts';
import { ensurePresenceTables } from './presence-tables.ts';

/** A validated change: values to set, keys to clear, and the app time of the change. */
export interface PresenceChange {
  readonly set: Readonly<Record<string, string>>;
  readonly clear: readonly string[];
  readonly at: Date;
}

/** Why a change was refused by the rate limit, and when the blocking allowance frees up. */
export interface RateRefusal {
  readonly kind: 'set' | 'clear';
  readonly retryAt: Date;
}

function date(v: unknown): Date | undefined {
  if (v instanceof Date) return v;
  if (typeof v === 'string') return new Date(v);
  return undefined;
}

/**
 * Applies a change unless the rate limit forbids it, in ONE statement: the upsert's conflict
 * branch locks the user's row and only updates when the last set (if this change sets values)
 * and the last clear (if it clears some) are at least `windowMs` old, so concurrent requests
 * cannot both pass. Returns the refusal when nothing was written.
 */
export async function applyPresenceChange(app: AppContext, userId: string, change: PresenceChange, windowMs: number): Promise<RateRefusal | undefined> {
  await ensurePresenceTables(app.db);
  const sets = Object.keys(change.set).length > 0;
  const clears = change.clear.length > 0;
  const limit = new Date(change.at.getTime() - windowMs);
  const setAt = sets ? change.at : null;
  const clearedAt = clears ? change.at : null;
  const written = await app.db.query(sql`INSERT INTO _larder_presence AS p (user_id, fields, set_at, cleared_at)
    VALUES (${userId}, ${JSON.stringify(change.set)}::jsonb, ${setAt}::timestamptz, ${clearedAt}::timestamptz)
    ON CONFLICT (user_id) DO UPDATE SET
      fields = (p.fields || ${JSON.stringify(change.set)}::jsonb) - ${[...change.clear]}::text[],
      set_at = coalesce(${setAt}::timestamptz, p.set_at),
      cleared_at = coalesce(${clearedAt}::timestamptz, p.cleared_at)
    WHERE (NOT ${sets}::boolean OR p.set_at IS NULL OR p.set_at <= ${limit}::timestamptz)
      AND (NOT ${clears}::boolean OR p.cleared_at IS NULL OR p.cleared_at <= ${limit}::timestamptz)
    RETURNING 1`);
  if (written.length > 0) return undefined;
  // Refused: say which allowance is used up and until when (read after the fact, for the message only).
  const rows = await app.db.query<{ set_at: unknown; cleared_at: unknown }>(sql`SELECT set_at, cleared_at FROM _larder_presence WHERE user_id = ${userId}`);
  const lastSet = date(rows[0]?.set_at);
  const lastClear = date(rows[0]?.cleared_at);
  if (sets && lastSet && lastSet > limit) return { kind: 'set', retryAt: new Date(lastSet.getTime() + windowMs) };
  if (clears && lastClear && lastClear > limit) return { kind: 'clear', retryAt: new Date(lastClear.getTime() + windowMs) };
  return { kind: sets ? 'set' : 'clear', retryAt: change.at };
}
