// End-to-end harness: the official LeanCloud JS SDK (`leancloud-storage`) against Larder
// listening on a real socket, once per engine.
//
// The SDK is a process-wide singleton (AV._config). node's test runner runs every test file in
// its own process and the suites of one file one after the other, so one `AV.init` per process
// is enough; each engine leg then re-points the SDK with `AV.setServerURL` before its first test.
// Re-calling `AV.init` would work too but logs a warning, and the app id never changes (the
// harness uses the same TEST_KEYS on both engines), so only the URL has to move.
import assert from 'node:assert/strict';
import { before } from 'node:test';
import AV from 'leancloud-storage';
import { forEachEngine, TEST_KEYS, type Harness } from '../integration/harness/engines.ts';

export { AV };

let initialised = false;

/** Points the SDK singleton at a listening Larder (init on first use, then only the URL). */
export function pointSdkAt(serverURL: string): void {
  if (!initialised) {
    AV.init({ appId: TEST_KEYS.appId, appKey: TEST_KEYS.appKey, masterKey: TEST_KEYS.masterKey, serverURL });
    initialised = true;
  } else {
    AV.setServerURL(serverURL);
  }
}

/**
 * Declares a suite once per engine, with Larder listening on 127.0.0.1 and the SDK pointed at it
 * before the suite's first test.
 */
export function forEachEngineWithSdk(name: string, body: (h: () => Harness) => void): void {
  forEachEngine(name, (h) => {
    before(async () => {
      pointSdkAt(await h().listen());
      // The SDK sends its current user's session on every request; a session from the previous
      // engine's server means nothing here. logOut only clears the SDK's local state.
      await AV.User.logOut();
    });
    body(h);
  });
}

/** What the SDK rejects with: an AV.Error carrying the server's `code` and raw message. */
export interface SdkError extends Error {
  code: number;
  rawMessage?: string;
}

/** Awaits a promise that must reject with an AV.Error of the given code; returns the error. */
export async function rejectsWithCode(p: Promise<unknown>, code: number): Promise<SdkError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== undefined, `expected a rejection with code ${code}, but the call succeeded`);
  const err = caught as SdkError;
  assert.ok(err instanceof AV.Error, `expected an AV.Error, got ${String(err)}`);
  assert.equal(err.code, code, `expected code ${code}, got ${err.code}: ${err.message}`);
  return err;
}

/** Creates and saves one object of a class with the given attributes. */
export async function saved(className: string, attrs: Record<string, unknown>, options?: AV.AuthOptions): Promise<AV.Object> {
  const obj = new AV.Object(className);
  obj.set(attrs);
  await obj.save(null, options);
  return obj;
}

/** The values of one attribute of a list of objects, in order. */
export function pluck(objects: readonly AV.Object[], key: string): unknown[] {
  return objects.map((o) => o.get(key));
}
