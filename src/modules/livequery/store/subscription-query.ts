/**
 * The body of `POST /1.1/LiveQuery/subscribe` (spec leancloud-services.md §4), parsed once:
 * `{query: {className, where, keys?, returnACL?, include?, order?, limit?, skip?}, id,
 * sessionToken?, clientTimestamp?}`. The Java SDK sends `where` (and some versions the whole
 * `query`) as JSON text; both forms are accepted. `order`, `limit`, `skip` and `include` shape a
 * result page and mean nothing for a stream of events: they are accepted and ignored.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../../module-api/errors.ts';
import { innerQueryClasses, type Condition, parseWhere } from '../../../module-api/reads.ts';
import { checkClassName, isPlainObject as isObject } from '../../../module-api/data.ts';
import { liveQueryError } from '../livequery-errors.ts';

/** Longest subscription id (the SDK's `installationId`) accepted. */
export const MAX_SUBSCRIPTION_ID_LENGTH = 128;
const SUBSCRIPTION_ID = /^[A-Za-z0-9_\-.:]+$/;

/** The query part of a subscription, as stored. */
export interface SubscriptionQuery {
  readonly className: string;
  readonly where: Record<string, unknown> | unknown[];
  /** The `keys` selection as the SDK sent it ("a,b,-c"), when any. */
  readonly keys?: string;
  readonly returnACL: boolean;
}

/** A parsed subscribe request. */
export interface SubscribeRequest {
  readonly subscriptionId: string;
  readonly query: SubscriptionQuery;
  /** The parsed where (already checked: no inner queries). */
  readonly condition: Condition;
  /** A session token given in the body (Java); the header wins when both are present. */
  readonly sessionToken?: string;
}

function invalid(message: string): ApiError {
  return new ApiError('invalidJson', message);
}

function jsonOrValue(v: unknown, what: string): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw invalid(`${what} is not valid JSON.`);
  }
}

/** Checks a subscription id (the SDK's installationId); throws 107 when it cannot be one. */
export function parseSubscriptionId(v: unknown): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_SUBSCRIPTION_ID_LENGTH || !SUBSCRIPTION_ID.test(v)) {
    throw invalid(`The subscription id (id) must be a string of 1 to ${MAX_SUBSCRIPTION_ID_LENGTH} letters, digits or -_.: characters.`);
  }
  return v;
}

function parseKeysParam(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((k) => typeof k === 'string')) return v.join(',');
  throw invalid('query.keys must be a string such as "a,b" or an array of strings.');
}

/** Refuses inner queries, as LeanCloud's LiveQuery did (they would need other tables' changes). */
export function refuseInnerQueries(cond: Condition): void {
  if (innerQueryClasses(cond).size > 0) throw liveQueryError('liveQueryInnerQuery');
}

/** Parses and checks a subscribe body. */
export function parseSubscribeBody(body: unknown): SubscribeRequest {
  if (!isObject(body)) throw invalid('The body must be a JSON object {query, id}.');
  const subscriptionId = parseSubscriptionId(body.id);
  const q = jsonOrValue(body.query, 'query');
  if (!isObject(q)) throw invalid('query must be an object {className, where}.');
  if (typeof q.className !== 'string') throw new ApiError('invalidClassName');
  checkClassName(q.className);
  const rawWhere = jsonOrValue(q.where ?? {}, 'query.where');
  if (!isObject(rawWhere) && !Array.isArray(rawWhere)) throw invalid('query.where must be an object.');
  const condition = parseWhere(rawWhere);
  refuseInnerQueries(condition);
  const returnACL = q.returnACL === true || q.returnACL === 'true';
  const keys = parseKeysParam(q.keys);
  const query: SubscriptionQuery = keys === undefined ? { className: q.className, where: rawWhere, returnACL } : { className: q.className, where: rawWhere, keys, returnACL };
  const token = typeof body.sessionToken === 'string' && body.sessionToken !== '' ? body.sessionToken : undefined;
  return token ? { subscriptionId, query, condition, sessionToken: token } : { subscriptionId, query, condition };
}

/** JSON with object keys sorted, so that equal queries give equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * The query id of a subscription: derived from the subscription id and the query, so that a
 * client re-subscribing after a reconnect (the SDK sends the same body again and keeps using
 * the id it got first) gets the same id from any process, even after its row expired.
 */
export function queryIdOf(subscriptionId: string, query: SubscriptionQuery): string {
  return createHash('sha256').update(subscriptionId).update('\u0000').update(canonicalJson(query)).digest('hex').slice(0, 32);
}
