/**
 * Pure pieces of serving a file: which types may render inline, a Content-Disposition that no
 * file name can break out of, and HTTP Range parsing.
 */
import type { ByteRange } from './blob-store.ts';

/**
 * Types a browser may show inline. Everything else (HTML, SVG, XML, JavaScript, PDF, unknown)
 * is served as an attachment: a file served from the API's origin must never run script there.
 */
const INLINE = /^(image\/(png|jpeg|gif|webp|bmp|avif|x-icon|vnd\.microsoft\.icon|heic|tiff)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|text\/plain)$/;

/** True when a file of this type may be shown inline. */
export function mayRenderInline(mimeType: string): boolean {
  return INLINE.test(mimeType.split(';')[0].trim().toLowerCase());
}

/**
 * `inline|attachment; filename="<ascii>"; filename*=UTF-8''<percent-encoded>` (RFC 6266): the
 * quoted form keeps only printable ASCII without quote or backslash, the extended form encodes
 * every other byte, so CR, LF and quotes in a name can never end the header or add another.
 */
export function contentDisposition(name: string, inline: boolean): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_').slice(0, 200) || 'file';
  const encoded = encodeURIComponent(name.slice(0, 400)).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** What a Range header asks of a file of `size` bytes. */
export type RangeAnswer = { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * One `bytes=` range (`a-b`, `a-`, `-n`). Several ranges, other units and malformed headers get
 * the whole file (RFC 9110 lets a server ignore Range); a range past the end is unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'full' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'full' };
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return { kind: 'unsatisfiable' };
    return size === 0 ? { kind: 'unsatisfiable' } : { kind: 'partial', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) return { kind: 'unsatisfiable' };
  if (end < start) return { kind: 'full' };
  return { kind: 'partial', range: { start, end } };
}

/** True when an If-None-Match header matches the ETag (weak comparison, `*` matches all). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === bare;
  });
}
