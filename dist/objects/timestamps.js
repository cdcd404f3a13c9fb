const PG_TS = /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([+-]\d{2})(?::?(\d{2}))?|Z)?$/;
/**
 * Formats a timestamptz as the API shows it: YYYY-MM-DDTHH:MM:SS.MMMZ in UTC. Connections run
 * with TimeZone=UTC, but an offset is honoured anyway.
 */
export function toIso(value) {
    if (value instanceof Date)
        return value.toISOString();
    const s = String(value);
    const m = PG_TS.exec(s);
    if (!m)
        return new Date(s).toISOString();
    const [, y, mo, d, h, mi, sec, frac = '', oh, om] = m;
    const ms = (frac + '000').slice(0, 3);
    if (!oh || (oh === '+00' && (!om || om === '00')))
        return `${y}-${mo}-${d}T${h}:${mi}:${sec}.${ms}Z`;
    return new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}.${ms}${oh}:${om ?? '00'}`).toISOString();
}
//# sourceMappingURL=timestamps.js.map