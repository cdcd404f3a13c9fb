/**
 * The write-extension types with the request context filled in: what cloud-code hooks,
 * LiveQuery and modules implement (docs/architecture.md, "Write pipeline").
 */
import type { RequestContext } from '../app-context.ts';
import type { BeforeWriteOf, WriteEventOf, WriteExtensionOf } from './extension-types.ts';

export type { BeforeResult, RestObject, WriteFlags, WriteInterest, WriteKind, WriteSource } from './extension-types.ts';

/** One write about to run, as a `before` extension sees it. */
export type BeforeWrite = BeforeWriteOf<RequestContext>;
/** One committed write, as an `after` extension sees it. */
export type WriteEvent = WriteEventOf<RequestContext>;
/** A write extension, registered per app with `app.writes.register(ext)`. */
export type WriteExtension = WriteExtensionOf<RequestContext>;
