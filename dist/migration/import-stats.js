/** Fresh counters. */
export function newClassStats() {
    return { read: 0, inserted: 0, updated: 0, unchanged: 0, skipped: 0, reasons: new Map(), dropped: new Map() };
}
/** The kind of a reason, for the summary: values in quotes and numbers are left out. */
export function reasonKind(reason) {
    return reason.replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N').slice(0, 120);
}
function bump(map, key, by = 1) {
    map.set(key, (map.get(key) ?? 0) + by);
}
/** Adds a skipped record to the counters. */
export function countSkip(stats, reason) {
    stats.skipped++;
    bump(stats.reasons, reasonKind(reason));
}
/** Adds what one writeObjects call did (its skips are counted by the caller, with their places). */
export function countWrite(stats, s) {
    stats.inserted += s.inserted;
    stats.updated += s.updated;
    stats.unchanged += s.unchanged;
    for (const [k, n] of Object.entries(s.dropped))
        bump(stats.dropped, k, n);
}
//# sourceMappingURL=import-stats.js.map