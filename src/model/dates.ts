/**
 * Dates: the one normaliser of a Date's `iso`, used by writes (objects/decode-value.ts) and by
 * queries (query/parse-value.ts) alike, so that every form one accepts the other accepts too and
 * both store and compare the same text. Stored form: `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC), whose
 * string order is chronological.
 *
 * Accepted: `YYYY-MM-DD`, optionally followed by a time `HH:MM`, `HH:MM:SS` or `HH:MM:SS.f`
 * (1 to 9 fraction digits, kept to the millisecond) after `T` or a space, optionally followed by
 * a zone `Z`, `±HH`, `±HHMM` or `±HH:MM`. No zone means UTC (LeanCloud's dates are UTC). Calendar
 * mistakes (February 30th, hour 24) and results outside years 0000-9999 are refused, where
 * V8's Date.parse would roll them over or read them in local time.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The stored form of a Date's `iso`, or undefined when it is not an accepted form. */
export function normalizeIso(iso: unknown): string | undefined {
  if (typeof iso !== 'string') return undefined;
  const m = ISO.exec(iso);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y), month = Number(mo), day = Number(d);
  const hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const days = month === 2 && isLeap(year) ? 29 : DAYS[month - 1];
  if (day < 1 || day > days) return undefined;
  let offsetMin = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2)), om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMin, second, Number(frac.padEnd(3, '0').slice(0, 3)));
  const out = date.toISOString();
  return /^\d{4}-/.test(out) ? out : undefined; // the zone pushed it outside years 0000-9999
}
