import type { Method, Route } from './route.ts';

interface Compiled {
  route: Route;
  segments: string[];
  /** Literal (non-parameter) segments: a literal beats a parameter. */
  statics: number;
  /** Position in the table: candidates are tried in table order. */
  index: number;
}

/** How many leading segments key the routes (the version and the family: `1.1/classes`). */
const KEY_SEGMENTS = 2;

/** The key of a path's or a pattern's leading segments. */
function keyOf(segments: readonly string[]): string {
  return segments.slice(0, KEY_SEGMENTS).join('/');
}

/** Two candidate lists, each in table order, merged in table order. */
function merged(a: readonly Compiled[], b: readonly Compiled[]): readonly Compiled[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return [...a, ...b].sort((x, y) => x.index - y.index);
}

/** The result of matching a method and path. */
export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong-method'; allowed: Method[] }
  | { kind: 'not-found' };

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/**
 * The table of API routes, shared by the HTTP server and /1.1/batch so that a batch item is
 * served by exactly the code that serves the same request on its own.
 */
export class RouteTable {
  private readonly compiled: Compiled[] = [];
  /**
   * The routes whose leading segments are literal, by segment count and those segments, in table
   * order: only those can match a path (issue 16). Trying every route of the path's length (46
   * of three segments, one object made per try) was a per-cent of a create's CPU
   * (docs/benchmarks.md, "Cloud code").
   */
  private readonly byKey = new Map<number, Map<string, Compiled[]>>();
  /** The routes with a parameter among their leading segments, by segment count, in table order. */
  private readonly wild = new Map<number, Compiled[]>();

  constructor(routes: readonly Route[]) {
    for (const r of routes) {
      const segments = split(r.path);
      const c: Compiled = { route: r, segments, statics: segments.filter((x) => !x.startsWith(':')).length, index: this.compiled.length };
      this.compiled.push(c);
      const n = segments.length;
      if (segments.slice(0, KEY_SEGMENTS).some((x) => x.startsWith(':'))) push(this.wild, n, c);
      else {
        let keyed = this.byKey.get(n);
        if (!keyed) this.byKey.set(n, (keyed = new Map()));
        push(keyed, keyOf(segments), c);
      }
    }
  }

  /** The route families: each route's first literal segment after its version (`classes`, `users`, ...). */
  families(): Set<string> {
    const out = new Set<string>();
    for (const c of this.compiled) {
      const seg = /^\d+(\.\d+)?$/.test(c.segments[0] ?? '') ? c.segments[1] : c.segments[0];
      if (seg && !seg.startsWith(':')) out.add(seg);
    }
    return out;
  }

  /** Finds the route for a method and a path (without query string). */
  match(method: string, path: string): Match {
    let segs: string[];
    try {
      segs = split(path).map((s) => decodeURIComponent(s));
    } catch {
      return { kind: 'not-found' };
    }
    const allowed: Method[] = [];
    let best: { route: Route; params: Record<string, string>; statics: number } | undefined;
    const candidates = merged(this.byKey.get(segs.length)?.get(keyOf(segs)) ?? [], this.wild.get(segs.length) ?? []);
    for (const c of candidates) {
      const params = matchSegments(c.segments, segs);
      if (!params) continue;
      if (c.route.method !== method) {
        allowed.push(c.route.method);
        continue;
      }
      // A literal segment beats a parameter: /users/me wins over /users/:objectId.
      if (!best || c.statics > best.statics) best = { route: c.route, params, statics: c.statics };
    }
    if (best) return { kind: 'found', route: best.route, params: best.params };
    return allowed.length ? { kind: 'wrong-method', allowed } : { kind: 'not-found' };
  }
}

/** Adds a route to the list under `key`. */
function push<K>(lists: Map<K, Compiled[]>, key: K, c: Compiled): void {
  const list = lists.get(key);
  if (list) list.push(c);
  else lists.set(key, [c]);
}

function matchSegments(pattern: string[], segs: string[]): Record<string, string> | undefined {
  if (pattern.length !== segs.length) return undefined;
  // Literals first: most candidates fail on one, and then no parameter object is made.
  for (let i = 0; i < pattern.length; i++) if (pattern[i] !== segs[i] && !pattern[i].startsWith(':')) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) {
      if (segs[i] === '') return undefined;
      params[p.slice(1)] = segs[i];
    } else if (p !== segs[i]) {
      return undefined;
    }
  }
  return params;
}
