/**
 * Which LiveQuery event a write is for one subscription, from whether the object matched the
 * subscription (its where AND the subscriber's read access) before and after the write.
 */

/** The events of the protocol (spec leancloud-services.md §4). */
export type LiveOp = 'create' | 'update' | 'enter' | 'leave' | 'delete' | 'login';

/** The kinds of write the pipeline reports. */
export type ChangeKind = 'create' | 'update' | 'delete' | 'login';

/** The event for a subscription, or undefined when the write means nothing to it. */
export function classify(kind: ChangeKind, before: boolean, after: boolean): LiveOp | undefined {
  switch (kind) {
    case 'create':
      return after ? 'create' : undefined;
    case 'update':
      if (before && after) return 'update';
      if (after) return 'enter';
      return before ? 'leave' : undefined;
    case 'delete':
      return before ? 'delete' : undefined;
    case 'login':
      return after ? 'login' : undefined;
    default:
      return undefined;
  }
}

/** Events whose JSON carries `updatedKeys` (the JS SDK picks the listener's arguments by it). */
export function carriesUpdatedKeys(op: LiveOp): boolean {
  return op === 'update' || op === 'enter' || op === 'leave';
}
