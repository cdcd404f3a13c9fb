/**
 * Module surface: writes. Rows a module writes in its own transaction report to the write
 * pipeline with CommitEvents (hooks and LiveQuery see them); bodies are parsed by the core rules.
 */
export { CommitEvents } from '../writes/commit-events.ts';
export type { WriteEvent, WriteExtension, WriteKind, WriteSource } from '../writes/write-extension-api.ts';
export { createObject, insertPrepared, prepareCreate } from '../objects/create-object.ts';
export { deleteObjects } from '../objects/delete-object.ts';
export { restObjectOf } from '../objects/write-body.ts';
export { parseWriteBody } from '../objects/parse-write.ts';
export { typesOf } from '../objects/field-operations.ts';
