/**
 * Debian's Chromium, driven by playwright-core. `.ci/run` installs it when it is missing; on a
 * machine without it the browser tests skip with one line, except under CI=true, where they fail.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** Under CI the browser tests must run: a missing Chromium is a failure, not a skip. */
export const browserRequired = process.env.CI === 'true';

if (!hasChromium && !browserRequired) {
  console.log(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh Chromium with its own user-data directory. `extraArgs` e.g. a host-resolver rule. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'mcp-eg-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...extraArgs],
    viewport: { width: 1360, height: 900 },
    deviceScaleFactor: 1,
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
