/**
 * Guesses a file's MIME type from its name or URL, as LeanCloud does when the client sends none
 * (the JS SDK's external-file save never sends one). Common types only; anything else is
 * application/octet-stream.
 */
const TYPES = {
    txt: 'text/plain', html: 'text/html', htm: 'text/html', css: 'text/css', csv: 'text/csv', md: 'text/markdown',
    js: 'application/javascript', json: 'application/json', xml: 'application/xml', pdf: 'application/pdf',
    zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar', apk: 'application/vnd.android.package-archive',
    doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp',
    svg: 'image/svg+xml', ico: 'image/x-icon', heic: 'image/heic', tif: 'image/tiff', tiff: 'image/tiff',
    mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', m4a: 'audio/mp4', aac: 'audio/aac', amr: 'audio/amr',
    mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', avi: 'video/x-msvideo', mkv: 'video/x-matroska',
};
/** The fallback for unknown extensions. */
export const DEFAULT_MIME_TYPE = 'application/octet-stream';
function extensionOf(name) {
    const base = name.split(/[?#]/)[0].split('/').pop() ?? '';
    const dot = base.lastIndexOf('.');
    return dot > 0 ? base.slice(dot + 1).toLowerCase() : undefined;
}
/** The MIME type for a file name, else for the URL's path, else application/octet-stream. */
export function guessMimeType(name, url) {
    for (const candidate of [name, url]) {
        const ext = candidate ? extensionOf(candidate) : undefined;
        // Own keys only: an extension such as 'constructor' or '__proto__' is no known type.
        if (ext && Object.hasOwn(TYPES, ext))
            return TYPES[ext];
    }
    return DEFAULT_MIME_TYPE;
}
//# sourceMappingURL=mime-type.js.map