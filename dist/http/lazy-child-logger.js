/**
 * A request's logger that makes the real child (bound to the request id) on first use. The
 * methods live on the prototype, so a request that never logs costs one small object.
 */
class LazyChildLogger {
    parent;
    bindings;
    opts;
    real;
    constructor(parent, bindings, opts) {
        this.parent = parent;
        this.bindings = bindings;
        this.opts = opts;
    }
    get level() {
        return this.real ? this.real.level : (this.opts?.level ?? this.parent.level);
    }
    set level(level) {
        this.child0().level = level;
    }
    child(bindings, opts) {
        return this.child0().child(bindings, opts);
    }
    fatal(...args) {
        this.write('fatal', args);
    }
    error(...args) {
        this.write('error', args);
    }
    warn(...args) {
        this.write('warn', args);
    }
    info(...args) {
        this.write('info', args);
    }
    debug(...args) {
        this.write('debug', args);
    }
    trace(...args) {
        this.write('trace', args);
    }
    silent() { }
    child0() {
        return (this.real ??= this.parent.child(this.bindings, this.opts));
    }
    write(level, args) {
        // Below the level nothing is written: no child is needed to find that out. (pino loggers
        // have isLevelEnabled; the Fastify logger type does not promise it.)
        const enabled = this.parent.isLevelEnabled;
        if (!this.real && this.opts?.level === undefined && enabled && !enabled.call(this.parent, level))
            return;
        const target = this.child0();
        target[level].apply(target, args);
    }
}
/**
 * Fastify gives every request a child logger bound to its request id. With pino's redaction
 * set up, making a child costs a noticeable share of a small request (about 2% of a worker's
 * CPU in the bench), and most requests never log: this factory defers it to the first line.
 */
export const lazyChildLogger = (parent, bindings, opts) => new LazyChildLogger(parent, bindings, opts);
//# sourceMappingURL=lazy-child-logger.js.map