import type { Method, Route } from './route.ts';

interface Compiled {
  route: Route;
  segments: string[];
  /** Literal (non-parameter) segments: a literal beats a parameter. */
  statics: number;
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
  /** The routes by segment count, in table order: only those can match a path (issue 16). */
  private readonly byLength = new Map<number, Compiled[]>();

  constructor(routes: readonly Route[]) {
    for (const r of routes) {
      const segments = split(r.path);
      const c: Compiled = { route: r, segments, statics: segments.filter((x) => !x.startsWith(':')).length };
      this.compiled.push(c);
      const same = this.byLength.get(segments.length);
      if (same) same.push(c);
      else this.byLength.set(segments.length, [c]);
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
    for (const c of this.byLength.get(segs.length) ?? []) {
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

function matchSegments(pattern: string[], segs: string[]): Record<string, string> | undefined {
  if (pattern.length !== segs.length) return undefined;
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
