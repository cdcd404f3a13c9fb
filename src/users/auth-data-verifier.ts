/**
 * Verification of third-party tokens in authData: pluggable and off by default. The spec says
 * "the caller verifies authData itself", so out of the box Larder trusts the authData it is sent
 * (as LeanCloud does with auto-validation switched off). An operator who wants the server to
 * check tokens registers an `AuthDataVerifier` per platform on the app; every login, sign-up or
 * link with that platform then calls it before anything is written, and a rejection is 251.
 * See docs/users.md.
 */
import type { AppContext } from '../app-context.ts';
import { appSlot } from '../app-scope.ts';
import { ApiError, isApiError } from '../errors/api-error.ts';
import type { AuthEntry } from './auth-data.ts';

/** Checks one platform entry (e.g. asks the platform whether access_token belongs to uid). */
export interface AuthDataVerifier {
  /** Resolves when the entry is genuine; rejects (or resolves false) when it is not. */
  verify(entry: { platform: string; uid: string; data: Readonly<Record<string, unknown>> }): Promise<boolean | void>;
}

// Per app, not per process: two apps in one process may trust different platforms.
const VERIFIERS = appSlot<Map<string, AuthDataVerifier>>('users.authDataVerifiers');

/** Registers (or, with undefined, removes) the verifier of one platform for an app. */
export function setAuthDataVerifier(app: AppContext, platform: string, verifier: AuthDataVerifier | undefined): void {
  const reg = app.scope.ensure(VERIFIERS, () => new Map());
  if (verifier) reg.set(platform, verifier);
  else reg.delete(platform);
}

/** Runs the registered verifiers of the given entries; platforms without one pass. */
export async function verifyAuthData(app: AppContext, entries: readonly AuthEntry[]): Promise<void> {
  const reg = app.scope.get(VERIFIERS);
  if (!reg) return;
  for (const entry of entries) {
    const verifier = reg.get(entry.platform);
    if (!verifier) continue;
    let ok: boolean | void;
    try {
      ok = await verifier.verify({ platform: entry.platform, uid: entry.uid, data: entry.data });
    } catch (err) {
      if (isApiError(err)) throw err;
      ok = false;
    }
    if (ok === false) throw new ApiError('invalidLinkedSession', `Invalid linked session: authData.${entry.platform} was rejected by its verifier.`);
  }
}
