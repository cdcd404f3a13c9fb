/** Why a call to the engine failed before it gave a usable answer. */
export type EngineFailure = 'unreachable' | 'timeout' | 'too-large';

/** A failed call; `kind` decides the client's error (engine-errors.ts). */
export class EngineCallError extends Error {
  /**
   * `afterHead`: the answer's status and headers were in and its body was being read whole
   * (`open` with `whole`); callers report such a failure as one of reading the answer.
   */
  constructor(readonly kind: EngineFailure, message: string, readonly afterHead = false) {
    super(message);
  }
}
