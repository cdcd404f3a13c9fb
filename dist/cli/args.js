/** Flags that take no value. */
const SWITCHES = new Set(['--help', '-h', '--version']);
/** Parses argv (without node and the script). Throws on a flag without its value. */
export function parseArgs(argv) {
    const words = [];
    const flags = {};
    let help = false;
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--help' || a === '-h') {
            help = true;
        }
        else if (a.startsWith('--')) {
            const eq = a.indexOf('=');
            if (eq > 0)
                flags[a.slice(0, eq)] = a.slice(eq + 1);
            else if (SWITCHES.has(a))
                flags[a] = 'true';
            else {
                const v = argv[i + 1];
                if (v === undefined || v.startsWith('--'))
                    throw new Error(`${a} needs a value`);
                flags[a] = v;
                i++;
            }
        }
        else {
            words.push(a);
        }
    }
    return { words, flags, help };
}
//# sourceMappingURL=args.js.map