/**
 * The files module's errors (docs/errors.md), declared through the module surface; the core
 * catalogue does not carry them.
 */
import { defineErrors } from '../../module-api/errors.ts';

/** Builds a files error: `throw filesError('fileTooLarge')`. */
export const filesError = defineErrors('files', {
  fileTooLarge: [413, 413, 'The file is larger than this server accepts (LARDER_FILE_MAX_BYTES).'],
  uploadTokenInvalid: [1, 403, 'The upload token is unknown, expired or already used.'],
  fileGone: [1, 404, 'The file was deleted while it was being uploaded.'],
  fileStorageFailed: [1, 502, 'The file storage did not answer as expected.'],
  invalidImageView: [1, 400, 'Invalid image processing parameters (imageView/1 or imageView/2).'],
  imageTooLarge: [1, 413, 'The image is too large to make a thumbnail from.'],
  notAnImage: [1, 415, 'The file is not an image this server can make a thumbnail from.'],
  // LeanCloud answers 429 code 429 when an app passes its concurrency limit (spec/leancloud-behaviour.md);
  // this is the same kind of limit, one process's render slots (render-slots.ts).
  thumbnailsBusy: [429, 429, 'Too many thumbnails are being made right now; try again shortly.'],
});
