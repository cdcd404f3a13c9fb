/**
 * The route family of a request: a small, fixed set of label values for metrics and logs, never
 * a value taken from the request as it is (a label per class name or object id would grow the
 * metrics without bound).
 */

/** Families of the routes Fastify itself serves (outside the API table). */
const SERVER_ROUTES: Readonly<Record<string, string>> = {
  '/health': 'health',
  '/health/live': 'health',
  '/metrics': 'metrics',
};

const FUNCTION_ROUTES: Readonly<Record<string, string>> = {
  '/1.1/functions/:name': 'functions',
  '/1/functions/:name': 'functions',
  '/1.1/call/:name': 'call',
  '/1/call/:name': 'call',
};

/**
 * The family of a request: for the API (`/1.1/...`, `/1/...`, module prefixes such as
 * `/friend/...`) the first segment after the version when it is one the route table knows
 * (`classes`, `users`, `batch`, ...), else `other`; `functions` and `call` for cloud functions; `health`, `metrics`, `console`, `pages`,
 * `export-download` for the server's own routes; `not-found` for no route at all.
 * `routeUrl` is the pattern Fastify matched (undefined when none did).
 */
export function routeFamily(routeUrl: string | undefined, path: string, known: ReadonlySet<string>): string {
  if (routeUrl === undefined) return 'not-found';
  const fixed = SERVER_ROUTES[routeUrl];
  if (fixed) return fixed;
  if (routeUrl.startsWith('/console')) return 'console';
  if (routeUrl.startsWith('/larder/export/')) return 'export-download';
  // Cloud functions have routes of their own (routes/functions.ts, and function-fast-path.ts
  // counts its calls under the same names).
  const fn = FUNCTION_ROUTES[routeUrl];
  if (fn) return fn;
  if (!routeUrl.endsWith('/*')) return 'pages';
  // `/1.1/classes/...` -> classes; a module prefix (`/friend/v2/...`) is its own family.
  // Scanned in place rather than split: this runs on every answer (issue 16).
  const end = path.indexOf('?') >= 0 ? path.indexOf('?') : path.length;
  const first = nextSegment(path, 0, end);
  if (first === undefined) return 'other';
  const version = /^\d+(\.\d+)?$/.test(path.slice(first[0], first[1]));
  const at = version ? nextSegment(path, first[1], end) : first;
  if (at === undefined) return 'other';
  const seg = path.slice(at[0], at[1]);
  return known.has(seg) ? seg : 'other';
}

/** Start and end of the next non-empty `/`-separated segment of path[from, end), if any. */
function nextSegment(path: string, from: number, end: number): [number, number] | undefined {
  let i = from;
  while (i < end && path.charCodeAt(i) === 47) i++;
  if (i >= end) return undefined;
  const slash = path.indexOf('/', i);
  return [i, slash < 0 || slash > end ? end : slash];
}
