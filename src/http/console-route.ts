/**
 * The web console (docs/console.md): static HTML, CSS and JavaScript modules from the repository's
 * `console/` folder, served at /console by Larder itself (no separate app, no CDN). The page holds
 * no secret and needs none to load: it asks for the master key, keeps it in the tab's
 * sessionStorage and sends it in the X-LC-Key header of API calls, so every action goes through
 * the admin APIs with their checks. No cookie carries the key, so another site cannot make the
 * browser act with it (no CSRF); a strict Content-Security-Policy forbids inline and foreign
 * scripts, and the scripts write stored data into the page only as text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where the console's files live: `<repo>/console`, the same from src/http and dist/http. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * Same origin only for scripts, styles and API calls; images may also come from https: (file
 * previews on S3 or a CDN) and data:/blob:. No inline script or style, no framing, no plugins.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  type: string;
  body: Buffer;
}

function loadAssets(dir: string): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const ext = name.slice(name.lastIndexOf('.'));
    const type = TYPES[ext];
    if (type) out.set(name, { type, body: readFileSync(dir + name) });
  }
  return out;
}

function send(reply: FastifyReply, asset: Asset): FastifyReply {
  return reply
    .header('Content-Security-Policy', CONSOLE_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    // The page changes with upgrades; never serve a stale copy with a new API.
    .header('Cache-Control', 'no-cache')
    .type(asset.type)
    .send(asset.body);
}

/**
 * Mounts GET /console (the page) and GET /console/<file> (its modules, styles, icons). Files are
 * read once at start-up from a fixed folder and looked up by exact name, so a request path can
 * never reach another file.
 */
export function mountConsole(server: FastifyInstance, dir: string = CONSOLE_DIR): void {
  const assets = loadAssets(dir);
  const index = assets.get('index.html');
  if (!index) throw new Error(`console: ${dir}index.html is missing`);
  server.get('/console', async (_req, reply) => send(reply, index));
  server.get('/console/:file', async (req, reply) => {
    const { file } = req.params as { file: string };
    const asset = assets.get(file);
    if (!asset) return reply.code(404).send({ code: 404, error: `No console file ${file.slice(0, 100)}.` });
    return send(reply, asset);
  });
}
