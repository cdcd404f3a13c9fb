import { randomBytes } from 'node:crypto';

let counter = randomBytes(3).readUIntBE(0, 3);
const processRandom = randomBytes(5).toString('hex');

/**
 * A new objectId: 24 lowercase hex digits shaped like a MongoDB ObjectId (seconds, per-process
 * random, counter), as LeanCloud's are. Time-ordered, so objectId ranges page by time.
 */
export function newObjectId(now = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  const secs = Math.floor(now / 1000).toString(16).padStart(8, '0');
  return secs + processRandom + counter.toString(16).padStart(6, '0');
}

const OBJECT_ID = /^[A-Za-z0-9]{1,64}$/;

/** True for an objectId a client may address (letters and digits; imported ids keep their form). */
export function isValidObjectId(id: string): boolean {
  return OBJECT_ID.test(id);
}
