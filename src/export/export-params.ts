/**
 * The parameters of POST /1.1/exportData (leancloud-behaviour §2.3), parsed once at the edge.
 * They come in the JSON body or in the query string (body wins); every one is optional.
 */
import { ApiError } from '../errors/api-error.ts';
import { isPlainObject } from '../model/plain-object.ts';
import { normalizeIso } from '../model/dates.ts';
import { checkClassName } from '../model/names.ts';
import { isValidEmail } from '../model/contact.ts';

/** Most classes one request may name (an app has at most 500). */
const MAX_CLASSES = 500;
const DAY_MS = 24 * 60 * 60 * 1000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A validated export request, as stored in the job row. */
export interface ExportParams {
  /** Inclusive lower bound on updatedAt (ISO), or none. */
  fromDate?: string;
  /** Exclusive upper bound on updatedAt (ISO), or none. A bare date covers that whole day. */
  toDate?: string;
  /** Classes to export, or undefined for every class. */
  classes?: string[];
  onlySchema: boolean;
  /** Who is mailed when the job ends (needs SMTP). */
  email?: string;
}

function single(source: Record<string, unknown>, name: string): string | undefined {
  const v = source[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  throw new ApiError('badRequest', `Export parameter '${name}' must be a string.`);
}

/**
 * A date bound: `YYYY-MM-DD` (UTC midnight; as an upper bound, the end of that day) or a full
 * ISO 8601 date-time.
 */
function parseDate(name: string, raw: string | undefined, upper: boolean): string | undefined {
  if (raw === undefined) return undefined;
  const iso = normalizeIso(raw);
  if (!iso) throw new ApiError('badRequest', `Export parameter '${name}' must be a date such as 2015-09-20 or 2015-09-20T10:00:00.000Z, got ${JSON.stringify(raw.slice(0, 40))}.`);
  // "to_date": "2015-09-20" reads as "up to and including that day".
  if (upper && DATE_ONLY.test(raw)) return new Date(Date.parse(iso) + DAY_MS).toISOString();
  return iso;
}

function parseClasses(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const names = [...new Set(raw.split(',').map((n) => n.trim()).filter((n) => n !== ''))];
  if (names.length === 0) return undefined;
  if (names.length > MAX_CLASSES) throw new ApiError('badRequest', `Export parameter 'classes' names more than ${MAX_CLASSES} classes.`);
  return names.map(checkClassName);
}

function parseFlag(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ApiError('badRequest', `Export parameter '${name}' must be "true" or "false".`);
}

/** Parses and validates the request (400 code 1 for bad values, 103 for bad class names, 125 for a bad email). */
export function parseExportParams(body: unknown, query: Readonly<Record<string, unknown>>): ExportParams {
  if (body !== undefined && body !== null && !isPlainObject(body)) throw new ApiError('invalidJson', 'The export request body must be a JSON object.');
  const source: Record<string, unknown> = { ...query, ...(body ?? {}) };
  const fromDate = parseDate('from_date', single(source, 'from_date'), false);
  const toDate = parseDate('to_date', single(source, 'to_date'), true);
  if (fromDate && toDate && fromDate >= toDate) throw new ApiError('badRequest', "Export parameter 'from_date' must be before 'to_date'.");
  const email = single(source, 'email');
  if (email !== undefined && !isValidEmail(email)) throw new ApiError('invalidEmail', `Export parameter 'email' is not an email address.`);
  const out: ExportParams = { onlySchema: parseFlag('only-schema', single(source, 'only-schema')) };
  const classes = parseClasses(single(source, 'classes'));
  if (fromDate) out.fromDate = fromDate;
  if (toDate) out.toDate = toDate;
  if (classes) out.classes = classes;
  if (email) out.email = email;
  return out;
}

/** Reads params back from a job row (written by parseExportParams, so only shape-checked). */
export function storedExportParams(value: unknown): ExportParams {
  const v = isPlainObject(value) ? value : {};
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  const classes = Array.isArray(v.classes) ? v.classes.filter((c): c is string => typeof c === 'string') : undefined;
  const out: ExportParams = { onlySchema: v.onlySchema === true };
  if (str(v.fromDate)) out.fromDate = str(v.fromDate);
  if (str(v.toDate)) out.toDate = str(v.toDate);
  if (classes) out.classes = classes;
  if (str(v.email)) out.email = str(v.email);
  return out;
}
