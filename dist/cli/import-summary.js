function pad(v, width, left = false) {
    const s = typeof v === 'number' ? v.toLocaleString('en-US') : v;
    return left ? s.padEnd(width) : s.padStart(width);
}
/** Prints the summary of an import, line by line. */
export function printImportSummary(r, info, print) {
    const classes = [...r.classes.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    const total = classes.reduce((n, [, s]) => n + s.read, 0);
    const rate = Math.round(total / Math.max(info.seconds, 0.001));
    print(`${info.dryRun ? 'Dry run (nothing written) of' : 'Import of'} ${info.path}: ${total.toLocaleString('en-US')} objects in ${info.seconds.toFixed(1)} s (${rate.toLocaleString('en-US')} objects/s)`);
    const w = Math.max(12, ...classes.map(([c]) => c.length));
    print(`${pad('class', w, true)} ${pad('read', 10)} ${pad(info.dryRun ? 'valid' : 'inserted', 10)} ${pad('updated', 10)} ${pad('unchanged', 10)} ${pad('skipped', 10)}`);
    for (const [name, s] of classes) {
        print(`${pad(name, w, true)} ${pad(s.read, 10)} ${pad(s.inserted, 10)} ${pad(s.updated, 10)} ${pad(s.unchanged, 10)} ${pad(s.skipped, 10)}`);
    }
    if (r.relations.size) {
        print('relation (owning class.column -> class)        read      added    skipped');
        for (const [key, s] of [...r.relations.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
            print(`${pad(`${key} -> ${s.targetClass}`, 42, true)} ${pad(s.read, 10)} ${pad(s.added, 10)} ${pad(s.skipped, 10)}`);
        }
    }
    for (const [name, s] of classes) {
        for (const [reason, n] of s.reasons)
            print(`skipped in ${name}: ${n.toLocaleString('en-US')} × ${reason}`);
        for (const [field, n] of s.dropped)
            print(`not imported in ${name}: ${n.toLocaleString('en-US')} × ${field}`);
    }
    if (r.ignored.length)
        print(`ignored (not export files, or not in --classes): ${r.ignored.slice(0, 20).join(', ')}${r.ignored.length > 20 ? ', …' : ''}`);
    if (r.broken)
        print(`ERROR: the input broke off at ${r.broken}; everything before it was imported.`);
    if (r.failures)
        print(`${r.failures.toLocaleString('en-US')} record(s) or file(s) could not be imported (errors above name file and line). Exit status 1.`);
    else if (!r.broken)
        print(info.dryRun ? 'Every record is valid.' : 'Done: every record was imported.');
}
//# sourceMappingURL=import-summary.js.map