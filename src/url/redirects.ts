/**
 * Redirect-like parameters (`redirect_uri`, `next`, `continue`, ...): where the user ends up after
 * the page. Another site there is worth telling the user (an open redirect on a trusted domain
 * is a classic phishing hop); a look-alike or a script URL there is blocked.
 */
import { canonicalView, type UrlView } from './canonical.js';
import type { UrlPart } from './parts.js';

const REDIRECT_NAMES = new Set([
  'redirect',
  'redirecturi',
  'redirecturl',
  'redirectto',
  'returnto',
  'returnurl',
  'returnuri',
  'return',
  'next',
  'nexturl',
  'continue',
  'continueurl',
  'url',
  'dest',
  'destination',
  'desturl',
  'callback',
  'callbackurl',
  'goto',
  'target',
  'targeturl',
  'successurl',
  'cancelurl',
  'failureurl',
  'errorurl',
  'backurl',
  'forward',
  'forwardurl',
  'postlogoutredirecturi',
  'service',
  'rurl',
  // The generic names redirectors and link shims use (issue 12): `q` and `u` (Google's and
  // Bing's `/url`, Facebook's `l.php`), `to`, `r`, `link`, `out`, `redir`, `go`.
  'q',
  'u',
  'to',
  'r',
  'link',
  'out',
  'redir',
  'go',
  'href',
  'src',
  'ref',
  'returnpath',
]);

/** True when a parameter name is a redirect-like one (`content.ts`'s gate). */
export function isRedirectName(key: string): boolean {
  return REDIRECT_NAMES.has(key);
}

/** What the redirect rules read of a target URL: a `URL`, or the view of one already in canonical form. */
export interface TargetUrl {
  readonly href: string;
  readonly protocol: string;
  readonly hostname: string;
}

export type RedirectTarget =
  | {
      readonly kind: 'web';
      readonly part: UrlPart | null;
      readonly url: TargetUrl;
      readonly encoded: boolean;
      /** `canonicalView(url.href)` when the target was read as written (it is in canonical form); null otherwise. */
      readonly view: UrlView | null;
    }
  | { readonly kind: 'script'; readonly part: UrlPart | null; readonly scheme: string; readonly encoded: boolean };

const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const SCRIPT_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

function targetOf(value: string, base: string): TargetUrl | null {
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
  // An absolute URL the parser would give back as written (`https://app.example.com/cb`) is not parsed again.
  const canonical = protocolRelative ? null : canonicalView(text);
  if (canonical !== null) return canonical;
  const loopback = protocolRelative ? null : loopbackTarget(text);
  if (loopback !== null) return loopback;
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}

// A native app's redirect to this computer (`http://127.0.0.1:53682/callback`, RFC 8252): the
// scheme, a loopback host the parser gives back as written, an optional port, then the end of
// the authority. Past the authority the parser cannot fail for these schemes, and the host is
// all the redirect rules read of a loopback target.
const LOOPBACK_TARGET = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?(?:[/?#\\]|$)/;
const MAX_PORT = 65_535;

/** A loopback target read without the parser: what `new URL(text)` gives of it, `href` parsed only when asked. */
class LoopbackTarget implements TargetUrl {
  constructor(
    readonly protocol: string,
    readonly hostname: string,
    private readonly text: string,
  ) {}

  get href(): string {
    return new URL(this.text).href;
  }
}

function loopbackTarget(text: string): TargetUrl | null {
  const match = LOOPBACK_TARGET.exec(text);
  if (match === null) return null;
  const port = match[1];
  if (port !== undefined && Number(port) > MAX_PORT) return null;
  const https = text.charCodeAt(4) === 0x73;
  const hostStart = https ? 8 : 7;
  const c = text.charCodeAt(hostStart);
  const hostname = c === 0x6c ? 'localhost' : c === 0x31 ? '127.0.0.1' : '[::1]';
  return new LoopbackTarget(https ? 'https:' : 'http:', hostname, text);
}

// Base64 of "http:" / "https:" (standard and URL-safe alphabets): a URL hidden in a parameter.
const BASE64_URL = /^aHR0c(?:DovL|HM6Ly)[A-Za-z0-9+/_-]*={0,2}$/;

/** A value that is a base64-encoded absolute URL, decoded; null otherwise. */
function decodeBase64Url(value: string): string | null {
  const text = value.trim();
  if (text.length < 12 || text.length > 4096 || !BASE64_URL.test(text)) return null;
  try {
    const b64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    const decoded = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    return /^https?:\/\/[\x21-\x7e]+$/.test(decoded) ? decoded : null;
  } catch {
    return null;
  }
}

function push(out: RedirectTarget[], part: UrlPart | null, url: TargetUrl, encoded: boolean): void {
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    // `targetOf` gives a parsed `URL`, a `LoopbackTarget`, or the view `canonicalView` read of the text.
    const view = url instanceof URL || url instanceof LoopbackTarget ? null : (url as UrlView);
    out.push({ kind: 'web', part, url, encoded, view });
  } else if (SCRIPT_SCHEMES.has(url.protocol)) out.push({ kind: 'script', part, scheme: url.protocol.slice(0, -1), encoded });
}

/**
 * The redirect-like parameters of a URL whose value is an absolute or protocol-relative URL, and
 * any query or fragment parameter whose value is a base64-encoded URL; `base` is the canonical
 * URL (`href`) they are read against.
 */
export function findRedirectTargets(parts: readonly UrlPart[], base: string): RedirectTarget[] {
  const out: RedirectTarget[] = [];
  for (const part of parts) {
    if (part.name === null || part.where === 'path') continue;
    if (part.facts.redirect) {
      const url = targetOf(part.value, base);
      if (url !== null) {
        push(out, part, url, false);
        continue;
      }
    }
    // A base64 URL (`?r=aHR0cHM6Ly9...`) under any name: only base64 of "http" starts that way.
    if (part.value.length >= 12 && part.value.charCodeAt(0) === 0x61) {
      const decoded = decodeBase64Url(part.value);
      const url = decoded === null ? null : targetOf(decoded, base);
      if (url !== null) push(out, part, url, true);
    }
  }
  return out;
}

/**
 * Google's AMP viewer opens the site named in its path (`google.com/amp/s/tinyurl.com/x`): an
 * open redirector whose target is in the path, not in a parameter.
 */
export function pathRedirectTarget(registrableLabel: string | null, pathname: string): URL | null {
  if (registrableLabel !== 'google' || !pathname.startsWith('/amp/')) return null;
  const rest = pathname.startsWith('/amp/s/') ? pathname.slice(7) : pathname.slice(5);
  if (rest === '' || !rest.includes('.')) return null;
  try {
    return new URL(`https://${rest}`);
  } catch {
    return null;
  }
}

/** True when `registrable` is one of `SHORTENERS`. */
export function isShortener(registrable: string): boolean {
  // A bit per (first character, length) of the shorteners answers most sites without hashing the name.
  const shape = SHORTENER_SHAPES[registrable.charCodeAt(0) & 0x7f]! & (1 << Math.min(registrable.length, 31));
  return shape !== 0 && SHORTENERS.has(registrable);
}

/**
 * Well-known URL shorteners and wrapping redirectors whose target is not in the URL: the user
 * cannot be shown where the link leads before opening it.
 */
export const SHORTENERS: ReadonlySet<string> = new Set([
  'bit.ly',
  'bitly.com',
  'j.mp',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'ow.ly',
  'is.gd',
  'v.gd',
  'buff.ly',
  'rebrand.ly',
  'cutt.ly',
  't.ly',
  'rb.gy',
  'shorturl.at',
  's.id',
  'lnkd.in',
  'tiny.cc',
  'tr.im',
  'bl.ink',
  'shorte.st',
  'adf.ly',
  'bc.vc',
  'ouo.io',
  'soo.gd',
  'x.co',
  'qr.ae',
  'dlvr.it',
  'ift.tt',
  'fb.me',
  'amzn.to',
  'amzn.eu',
  'a.co',
  'surl.li',
  'clck.ru',
  'vk.cc',
  'u.to',
  'urlz.fr',
  'shorturl.com',
  'tinyurl.is',
  'short.gy',
  'kutt.it',
  'snip.ly',
  'trib.al',
  'lnk.to',
  'linkin.bio',
  'spoo.me',
  'gg.gg',
  'shrtco.de',
  'urlzs.com',
  'urldefense.com',
  'urldefense.proofpoint.com',
  'click.pstmrk.it',
]);
const SHORTENER_SHAPES = new Uint32Array(128);
for (const site of SHORTENERS) SHORTENER_SHAPES[site.charCodeAt(0) & 0x7f]! |= 1 << Math.min(site.length, 31);
