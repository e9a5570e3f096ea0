/**
 * Openers hand a consented URL to a browser the client cannot look into (spec 2025-11-25: open
 * it "in a secure manner that does not enable the client or LLM to inspect the content or user
 * inputs"). The guard calls an opener only through `guard.openUrl`, after a durable consent receipt.
 */
import openInBrowser from 'open';
import type { Opener } from '../../core/flows.js';
import { GuardCode, GuardError } from '../../protocol/errors.js';

export type { Opener } from '../../core/flows.js';

/** How the system opener starts the browser: the `open` package's function (injected in tests). */
export type Launch = (url: string, options: { wait: false }) => Promise<{ unref(): void }>;

export interface SystemBrowserOptions {
  /** Default: the `open` package (xdg-open, macOS `open`, or PowerShell with an encoded command on Windows). */
  readonly launch?: Launch;
}

const OPENABLE = new Set(['https:', 'http:']);
// A URL parser drops or re-encodes these; what the browser would get is then not what the user saw.
const UNSAFE_CHARACTERS = /[\u0000-\u0020\u007f]/;

/**
 * Throws unless `url` is an absolute `https:` or `http:` URL without whitespace or control
 * characters. The message names the scheme only: the URL itself may carry a secret.
 */
export function assertOpenableUrl(url: string): void {
  if (UNSAFE_CHARACTERS.test(url))
    throw new GuardError(GuardCode.urlBlocked, 'refusing to open a URL that contains whitespace or control characters');
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new GuardError(GuardCode.urlBlocked, 'refusing to open something that is not an absolute URL');
  }
  if (!OPENABLE.has(protocol))
    throw new GuardError(
      GuardCode.urlBlocked,
      `refusing to open a ${JSON.stringify(protocol.slice(0, 20))} URL: only https: and http: are opened`,
    );
}

/**
 * Opens URLs in the system browser through the `open` package: no shell parses the URL, nothing
 * of the page comes back to the client, and the browser outlives the host. Resolves once the
 * browser was started; rejects when it cannot start. Refuses anything but `https:` / `http:` URLs.
 * @example createElicitationHandler(guard, ui, { opener: systemBrowserOpener() })
 */
export function systemBrowserOpener(options: SystemBrowserOptions = {}): Opener {
  const launch: Launch = options.launch ?? ((url, launchOptions) => openInBrowser(url, launchOptions));
  return async (url: string) => {
    assertOpenableUrl(url);
    let child: { unref(): void };
    try {
      child = await launch(url, { wait: false });
    } catch (error) {
      throw new GuardError(GuardCode.internal, `could not start the system browser (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    child.unref();
  };
}

/**
 * An opener over a host's own browser API (an in-app system browser sheet, an extension's
 * `tabs.create`, Electron's `shell.openExternal`). The same scheme rule applies first. `open`
 * must hand the URL over and return: resolve once the browser has it, not when the user is done
 * there (the server's answer waits for the opener). It must not give the page's content back.
 * @example functionOpener((url) => shell.openExternal(url))
 */
export function functionOpener(open: (url: string) => Promise<void> | void): Opener {
  return async (url: string) => {
    assertOpenableUrl(url);
    await open(url);
  };
}
