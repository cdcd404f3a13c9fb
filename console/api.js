// The console's only way to the server: the REST and admin APIs with the master key in the
// X-LC-Key header. The key lives in this tab's sessionStorage (gone when the tab closes), never
// in a URL, a cookie or localStorage.
const STORE = 'larder.console.session';

/** The signed-in session `{appId, masterKey}` or null. */
export function session() {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORE) ?? 'null');
    return s && typeof s.appId === 'string' && typeof s.masterKey === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** Keeps the session for this tab. */
export function signIn(appId, masterKey) {
  sessionStorage.setItem(STORE, JSON.stringify({ appId, masterKey }));
}

/** Forgets the key and everything else the console kept in this tab. */
export function signOut() {
  sessionStorage.clear();
}

/** An API refusal: HTTP status plus LeanCloud's {code, error}. */
export class ApiFailure extends Error {
  constructor(status, code, message) {
    super(`HTTP ${status}${code !== undefined ? `, code ${code}` : ''}: ${message}`);
    this.status = status;
    this.code = code;
  }
}

function headers(s, json) {
  const out = { 'X-LC-Id': s.appId, 'X-LC-Key': `${s.masterKey},master` };
  if (json) out['Content-Type'] = 'application/json';
  return out;
}

/** Calls the API as the master key; resolves to the parsed answer, throws ApiFailure. */
export async function api(method, path, body, s = session()) {
  if (!s) throw new ApiFailure(401, undefined, 'Not signed in.');
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: headers(s, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiFailure(0, undefined, `The server did not answer (${err.message}).`);
  }
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { error: text.slice(0, 500) };
  }
  if (!res.ok) throw new ApiFailure(res.status, data.code, data.error ?? res.statusText);
  return data;
}

/** GET /metrics as text (master key). */
export async function metricsText(s = session()) {
  const res = await fetch('/metrics', { headers: headers(s, false), credentials: 'omit', cache: 'no-store' });
  const text = await res.text();
  if (!res.ok) throw new ApiFailure(res.status, undefined, text.slice(0, 300));
  return text;
}

/** A query string from an object, skipping undefined values; objects are sent as JSON. */
export function qs(params) {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    out.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const text = out.toString();
  return text ? `?${text}` : '';
}

/** The path segment of a class or object name. */
export const seg = encodeURIComponent;
