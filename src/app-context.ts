import type { AppScope } from './app-scope.ts';
import type { AppKeys } from './auth/app-keys.ts';
import type { CloudCode } from './cloud/cloud-code.ts';
import type { Mailer } from './mail/mailer.ts';
import type { SmsSender } from './sms/sms-sender.ts';
import type { ClassRegistry } from './schema/class-registry.ts';
import type { AppSettings } from './settings/app-settings.ts';
import type { Database } from './storage/database.ts';
import type { WriteExtensions } from './writes/write-extensions.ts';

/**
 * One app served by this process: its keys, its database and its class catalogue. Every
 * request carries its app; storage is reached through it, never through a global, so that
 * several apps on one server need no rewrite.
 */
export interface AppContext {
  readonly keys: AppKeys;
  readonly db: Database;
  readonly classes: ClassRegistry;
  /** Accepted clock skew of master-key signatures, ms. */
  readonly masterSignWindowMs: number;
  /** Extensions of the write pipeline (hooks, LiveQuery...): docs/architecture.md. */
  readonly writes: WriteExtensions<RequestContext>;
  /**
   * This process's state of the app, with its lifetime (openApp -> closeApp): slots of per-app
   * state, the settings snapshot and its changes (src/app-scope.ts).
   */
  readonly scope: AppScope;
  /** Current settings: `scope.settings`, an immutable snapshot replaced whole on a change. */
  readonly settings: AppSettings;
  /** Outgoing mail (LARDER_SMTP_URL); absent when not configured. */
  mailer?: Mailer;
  /** Sender of SMS codes (LARDER_SMS_SENDER); absent when not configured. */
  smsSender?: SmsSender;
  /** The app's LeanEngine (LARDER_ENGINE_URL): cloud functions and hooks; absent when not configured. */
  cloud?: CloudCode;
  /**
   * Processes serving the app from one database (`--workers`; 1 when absent). Work this process
   * keeps in flight on behalf of all of them (grouped writes: src/objects/group-slots.ts) is
   * divided among them.
   */
  readonly processes?: number;
  /** Clock of expiring secrets (mail links, SMS codes); the system clock when absent. */
  clock?: () => Date;
}

/** The app's current time for expiring secrets. */
export function nowOf(app: AppContext): Date {
  return app.clock ? app.clock() : new Date();
}

/** Who is calling, as far as permission checks are concerned. */
export interface Principal {
  /** The master key bypasses every ACL and class permission. */
  readonly master: boolean;
  /** The acting user's objectId, when a valid session was given. */
  readonly userId?: string;
  /** ACL principals this caller holds: '*', its userId, 'role:<name>' for every role (inherited). */
  readonly readers: readonly string[];
}

/** Everything a use-case knows about one request. */
export interface RequestContext {
  readonly app: AppContext;
  readonly master: boolean;
  readonly sessionToken?: string;
  /** X-LC-Prod: true unless the client asked for staging (0). */
  readonly production: boolean;
  /** X-LC-Hook-Key as the caller sent it, unchecked (cloud/hook-key.ts checks it). */
  readonly hookKey?: string;
  /** Base URL of this server as the client sees it, e.g. http://host:3000 (Location headers). */
  readonly baseUrl: string;
  /** Resolves (once) who the caller is. */
  principal(): Promise<Principal>;
}
