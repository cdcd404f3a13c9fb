/**
 * Real headless Chromium for the web console's end-to-end tests: Debian's `chromium` package
 * driven by playwright-core (no browser download). A missing browser fails the test with the
 * command that installs it; it never skips (.ci/run installs it on a fresh machine).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where Debian installs Chromium; LARDER_CHROMIUM overrides it. */
export const CHROMIUM_PATH = process.env.LARDER_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

/** A launched browser with a fresh profile; close() removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh user-data dir, or throws saying how to install it. */
export async function launchChromium(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: run \`apt-get install -y chromium\` (or set LARDER_CHROMIUM). The console tests need a real browser and do not skip.`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'larder-chromium-'));
  // playwright passes the profile as --user-data-dir itself (it refuses the flag in args).
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: FLAGS, viewport: { width: 1280, height: 800 } });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
