import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type AnyLog = (...args: unknown[]) => void;

/**
 * A request's logger that makes the real child (bound to the request id) on first use. The
 * methods live on the prototype, so a request that never logs costs one small object.
 */
class LazyChildLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly opts: ChildOptions,
  ) {}

  get level(): string {
    return this.real ? this.real.level : (this.opts?.level ?? this.parent.level);
  }

  set level(level: string) {
    this.child0().level = level;
  }

  child(bindings: Bindings, opts?: ChildOptions): FastifyBaseLogger {
    return this.child0().child(bindings, opts);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private child0(): FastifyBaseLogger {
    return (this.real ??= this.parent.child(this.bindings, this.opts));
  }

  private write(level: Level, args: unknown[]): void {
    // Below the level nothing is written: no child is needed to find that out. (pino loggers
    // have isLevelEnabled; the Fastify logger type does not promise it.)
    const enabled = (this.parent as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled;
    if (!this.real && this.opts?.level === undefined && enabled && !enabled.call(this.parent, level)) return;
    const target = this.child0();
    (target[level] as AnyLog).apply(target, args);
  }
}

/**
 * Fastify gives every request a child logger bound to its request id. With pino's redaction
 * set up, making a child costs a noticeable share of a small request (about 2% of a worker's
 * CPU in the bench), and most requests never log: this factory defers it to the first line.
 */
export const lazyChildLogger: ChildLoggerFactory = (parent, bindings, opts) =>
  new LazyChildLogger(parent, bindings, opts) as unknown as FastifyBaseLogger;
