/**
 * An object as the write pipeline reports it (REST JSON: fields in wire form plus objectId,
 * createdAt, updatedAt and ACL) turned into the columns of its class-table row, so that a
 * subscription's compiled where can be evaluated against it exactly as a query would be.
 */
import { permsOf, type Acl } from '../../../module-api/data.ts';
import { readsRow } from '../../../module-api/reads.ts';

/** The column values of one row (see storage/class-table.ts). */
export interface RowValues {
  readonly objectId: string;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
  readonly acl: Acl | null;
  readonly rperm: string[];
  readonly wperm: string[];
  readonly data: Record<string, unknown>;
}

const SERVER_KEYS = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL', 'className', '__type']);

function isoOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && v !== null && typeof (v as { iso?: unknown }).iso === 'string') return (v as { iso: string }).iso;
  return null;
}

function aclOf(v: unknown): Acl | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Acl) : null;
}

/** The row of a REST object. An absent ACL is the public one, as stored rows without an ACL are. */
export function rowOf(obj: Readonly<Record<string, unknown>>): RowValues {
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!SERVER_KEYS.has(k)) data[k] = v;
  const acl = aclOf(obj.ACL);
  const perms = acl ? permsOf(acl) : { rperm: ['*'], wperm: ['*'] };
  return { objectId: String(obj.objectId), createdAt: isoOf(obj.createdAt), updatedAt: isoOf(obj.updatedAt), acl, rperm: perms.rperm, wperm: perms.wperm, data };
}

/** True when an ACL principal list may read the row (the planner's read-ACL rule, in memory). */
export function readableBy(row: RowValues, readers: readonly string[]): boolean {
  return readsRow(row.rperm, readers);
}
