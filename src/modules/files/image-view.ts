/**
 * The Qiniu image syntax the SDKs append to a file url (JS `AV.File#thumbnailURL`):
 * `imageView/<mode>/w/<width>/h/<height>/q/<quality>/format/<fmt>` (also `imageView2/...`).
 * Mode 1: cover the box and crop to exactly width x height; mode 2: fit inside it, no crop.
 */
import { ApiError } from '../../module-api/errors.ts';
import { filesError } from './files-errors.ts';

/** Output formats a thumbnail may have. */
export const THUMBNAIL_FORMATS = ['png', 'jpeg', 'webp', 'gif'] as const;
/** One output format. */
export type ThumbnailFormat = (typeof THUMBNAIL_FORMATS)[number];

/** Largest width or height of a thumbnail. */
export const MAX_THUMBNAIL_SIDE = 4096;

/** A parsed thumbnail request. */
export interface ImageView {
  mode: 1 | 2;
  width?: number;
  height?: number;
  quality: number;
  format?: ThumbnailFormat;
}

function bad(detail: string): ApiError {
  return filesError('invalidImageView', `Invalid thumbnail parameters: ${detail}. Use imageView/<1|2>/w/<px>/h/<px>/q/<1-100>/format/<png|jpg|webp|gif>.`);
}

function side(v: string, what: string): number {
  if (!/^\d{1,5}$/.test(v)) throw bad(`${what} must be a whole number`);
  const n = Number(v);
  if (n < 1 || n > MAX_THUMBNAIL_SIDE) throw bad(`${what} must be 1 to ${MAX_THUMBNAIL_SIDE}`);
  return n;
}

/** Parses the query part of a thumbnail url (without '?'); throws invalidImageView. */
export function parseImageView(query: string): ImageView {
  let text: string;
  try {
    text = decodeURIComponent(query.split('&')[0]);
  } catch {
    throw bad('malformed percent-encoding');
  }
  const parts = text.split('/');
  if ((parts[0] !== 'imageView' && parts[0] !== 'imageView2') || parts.length % 2 !== 0) throw bad('unexpected shape');
  const mode = parts[1];
  if (mode !== '1' && mode !== '2') throw bad('mode must be 1 or 2');
  const view: ImageView = { mode: mode === '1' ? 1 : 2, quality: 100 };
  for (let i = 2; i < parts.length; i += 2) {
    const [name, value] = [parts[i], parts[i + 1]];
    if (name === 'w') view.width = side(value, 'w');
    else if (name === 'h') view.height = side(value, 'h');
    else if (name === 'q') {
      if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 100) throw bad('q must be 1 to 100');
      view.quality = Number(value);
    } else if (name === 'format') {
      const f = value.toLowerCase() === 'jpg' ? 'jpeg' : value.toLowerCase();
      if (!(THUMBNAIL_FORMATS as readonly string[]).includes(f)) throw bad(`format must be one of png, jpg, webp, gif`);
      view.format = f as ThumbnailFormat;
    } else throw bad(`unknown parameter ${JSON.stringify(name.slice(0, 20))}`);
  }
  if (view.width === undefined && view.height === undefined) throw bad('w or h is required');
  if (view.mode === 1 && (view.width === undefined || view.height === undefined)) {
    // Qiniu: mode 1 with one side crops a square.
    view.width ??= view.height;
    view.height ??= view.width;
  }
  return view;
}

/** A canonical text of a view, for cache names. */
export function viewId(v: ImageView): string {
  return `${v.mode}-${v.width ?? ''}-${v.height ?? ''}-${v.quality}-${v.format ?? ''}`;
}
