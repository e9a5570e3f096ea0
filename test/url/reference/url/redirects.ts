/**
 * Redirect-like parameters (`redirect_uri`, `next`, `continue`, ...): where the user ends up after
 * the page. Another site there is worth telling the user (an open redirect on a trusted domain
 * is a classic phishing hop); a look-alike or a script URL there is blocked.
 */
import type { UrlPart } from './parts.js';

const REDIRECT_NAMES = new Set([
  'redirect', 'redirecturi', 'redirecturl', 'redirectto', 'returnto', 'returnurl', 'returnuri', 'return', 'next', 'nexturl',
  'continue', 'continueurl', 'url', 'dest', 'destination', 'desturl', 'callback', 'callbackurl', 'goto', 'target', 'targeturl',
  'successurl', 'cancelurl', 'failureurl', 'errorurl', 'backurl', 'forward', 'forwardurl', 'postlogoutredirecturi', 'service', 'rurl',
]);

export type RedirectTarget =
  | { readonly kind: 'web'; readonly part: UrlPart; readonly url: URL }
  | { readonly kind: 'script'; readonly part: UrlPart; readonly scheme: string };

const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const SCRIPT_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

function targetOf(value: string, base: string): URL | null {
  let text = value.trim();
  // Double-encoded (`https%3A%2F%2F...`): decode once more.
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*%3A/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return null;
    }
  }
  const protocolRelative = text.startsWith('//') || text.startsWith('\\\\') || text.startsWith('/\\') || text.startsWith('\\/');
  if (!protocolRelative && !ABSOLUTE.test(text)) return null;
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}

/**
 * The redirect-like parameters of a URL whose value is an absolute or protocol-relative URL;
 * `base` is the canonical URL (`href`) they are read against.
 */
export function findRedirectTargets(parts: readonly UrlPart[], base: string): RedirectTarget[] {
  const out: RedirectTarget[] = [];
  for (const part of parts) {
    if (part.name === null || part.where === 'path' || !REDIRECT_NAMES.has(part.key)) continue;
    const url = targetOf(part.value, base);
    if (url === null) continue;
    if (url.protocol === 'http:' || url.protocol === 'https:') out.push({ kind: 'web', part, url });
    else if (SCRIPT_SCHEMES.has(url.protocol)) out.push({ kind: 'script', part, scheme: url.protocol.slice(0, -1) });
  }
  return out;
}
