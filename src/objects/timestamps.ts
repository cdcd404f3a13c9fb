const UTC_TS = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;
const PG_TS = /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([+-]\d{2})(?::?(\d{2}))?|Z)?$/;

/**
 * Formats a timestamptz as the API shows it: YYYY-MM-DDTHH:MM:SS.MMMZ in UTC. Connections run
 * with TimeZone=UTC, but an offset is honoured anyway.
 */
export function toIso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const s = String(value);
  // What every row read has (TimeZone=UTC): `YYYY-MM-DD HH:MM:SS[.f-ffffff]+00`, rewritten by
  // slicing; a test without captures costs less than the general parse below (each object of
  // an answer has two timestamps: about 2% of the server's CPU on a page of 20).
  if (UTC_TS.test(s)) {
    const ms = s.length === 22 ? '000' : s.length >= 26 ? s.slice(20, 23) : (s.slice(20, -3) + '00').slice(0, 3);
    return `${s.slice(0, 10)}T${s.slice(11, 19)}.${ms}Z`;
  }
  const m = PG_TS.exec(s);
  if (!m) return new Date(s).toISOString();
  const [, y, mo, d, h, mi, sec, frac = '', oh, om] = m;
  const ms = (frac + '000').slice(0, 3);
  if (!oh || (oh === '+00' && (!om || om === '00'))) return `${y}-${mo}-${d}T${h}:${mi}:${sec}.${ms}Z`;
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}.${ms}${oh}:${om ?? '00'}`).toISOString();
}
