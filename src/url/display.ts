/**
 * The display model: the canonical URL cut into segments, the registrable domain marked, the
 * host in Unicode only when every label is safe to show. Never truncated (a renderer that must
 * elide does so from the front and keeps the registrable domain, per Chromium's guidelines).
 */
import type { UrlDisplay, UrlSegment } from './types.js';
import type { UrlView } from './canonical.js';
import type { HostParts } from './host.js';

export const EMPTY_DISPLAY: UrlDisplay = Object.freeze({
  full: '',
  segments: Object.freeze([]) as readonly UrlSegment[],
  scheme: null,
  host: null,
  hostUnicode: null,
  hostAscii: null,
  registrableDomain: null,
  punycodeShown: false,
});

function segment(kind: UrlSegment['kind'], text: string, highlight = false): UrlSegment {
  return { kind, text, highlight };
}

// Segments every web URL shares, frozen and reused: each analysis allocates only what is its own
// (allocation, not arithmetic, dominates what a display costs).
const HTTPS = Object.freeze(segment('scheme', 'https'));
const HTTP = Object.freeze(segment('scheme', 'http'));
const AUTHORITY = Object.freeze(segment('separator', '://'));
const NO_AUTHORITY = Object.freeze(segment('separator', ':'));
const EMPTY_QUERY = Object.freeze(segment('query', '?'));
const EMPTY_FRAGMENT = Object.freeze(segment('fragment', '#'));

function present(s: UrlSegment | null): number {
  return s === null ? 0 : 1;
}

function textLength(s: UrlSegment | null): number {
  return s === null ? 0 : s.text.length;
}

export interface DisplayHost {
  /** Host parts when the host is a domain name; null for IP literals, opaque or empty hosts. */
  readonly parts: HostParts | null;
  /** Show the Unicode form (every label judged safe and no look-alike). */
  readonly unicodeSafe: boolean;
}

/** The host as the display shows it (`UrlDisplay.host`), without building the display. */
export function shownHost(url: UrlView, host: DisplayHost): string | null {
  const ascii = url.hostname;
  if (ascii === '') return null;
  const parts = host.parts;
  return parts !== null && parts.idn && host.unicodeSafe ? parts.unicode : ascii;
}

/**
 * Builds the display of a parsed URL. The password of a userinfo is masked (`***`): userinfo is
 * shown only so the user sees that the URL carries it, and a secret never reaches a display
 * that may be logged.
 */
export function buildDisplay(url: UrlView, host: DisplayHost): UrlDisplay {
  const { href, protocol, hash, search, username, password, hostname: ascii, port, pathname } = url;
  const schemeSegment = protocol === 'https:' ? HTTPS : protocol === 'http:' ? HTTP : segment('scheme', protocol.slice(0, -1));
  const scheme = schemeSegment.text;
  const hasAuthority = href.charCodeAt(protocol.length) === 0x2f && href.charCodeAt(protocol.length + 1) === 0x2f;
  const userinfo = username !== '' || password !== '' ? segment('userinfo', `${username}${password !== '' ? ':***' : ''}@`) : null;

  const parts = host.parts;
  const idn = parts !== null && parts.idn;
  const showUnicode = idn && host.unicodeSafe;
  // The same as `shownHost`.
  const shown = ascii === '' ? null : showUnicode ? parts.unicode : ascii;
  let registrableDomain: string | null = null;
  let subdomain: UrlSegment | null = null;
  let hostSegment: UrlSegment | null = null;
  if (shown !== null) {
    if (parts !== null && parts.registrable !== null) {
      registrableDomain = showUnicode ? parts.registrableUnicode! : parts.registrable;
      const sub = showUnicode ? parts.subdomainUnicode : parts.subdomain;
      if (sub !== '') subdomain = segment('subdomain', sub + '.');
      hostSegment = segment('registrable', registrableDomain, true);
    } else {
      hostSegment = segment('host', shown, true);
    }
  }
  const portSegment = port !== '' ? segment('port', `:${port}`) : null;
  const path = pathname !== '' ? segment('path', pathname) : null;
  // An empty query or fragment (`/?`, `/#`) is still part of the canonical URL; the delimiters
  // can only sit right before the fragment or at the very end.
  const last = href.charCodeAt(href.length - 1);
  const emptyFragment = hash === '' && last === 0x23;
  const beforeFragment = href.length - (hash !== '' ? hash.length : emptyFragment ? 1 : 0);
  const query = search !== '' ? segment('query', search) : href.charCodeAt(beforeFragment - 1) === 0x3f ? EMPTY_QUERY : null;
  const fragment = hash !== '' ? segment('fragment', hash) : emptyFragment ? EMPTY_FRAGMENT : null;

  // One array of the exact size: growing it segment by segment allocates several times that.
  const count =
    2 +
    present(userinfo) +
    present(subdomain) +
    present(hostSegment) +
    present(portSegment) +
    present(path) +
    present(query) +
    present(fragment);
  const length =
    scheme.length +
    (hasAuthority ? 3 : 1) +
    textLength(userinfo) +
    textLength(subdomain) +
    textLength(hostSegment) +
    textLength(portSegment) +
    pathname.length +
    textLength(query) +
    textLength(fragment);
  const segments = new Array<UrlSegment>(count);
  let at = 0;
  segments[at++] = schemeSegment;
  segments[at++] = hasAuthority ? AUTHORITY : NO_AUTHORITY;
  if (userinfo !== null) segments[at++] = userinfo;
  if (subdomain !== null) segments[at++] = subdomain;
  if (hostSegment !== null) segments[at++] = hostSegment;
  if (portSegment !== null) segments[at++] = portSegment;
  if (path !== null) segments[at++] = path;
  if (query !== null) segments[at++] = query;
  if (fragment !== null) segments[at++] = fragment;

  // Each segment is the canonical URL's own text at its place, except a masked password and a
  // Unicode host, or it leaves something out (a trailing dot of the host, the `/.` before a path
  // that starts with `//`), which shortens the whole. Without those two, equal length means the
  // segments spell `href`: use it rather than a concatenation.
  let full: string;
  if (password === '' && !showUnicode && length === href.length) {
    full = href;
  } else {
    full = '';
    for (const s of segments) full += s.text;
  }
  return {
    full,
    segments,
    scheme,
    host: shown,
    hostUnicode: ascii === '' ? null : parts !== null ? parts.unicode : ascii,
    hostAscii: ascii === '' ? null : ascii,
    registrableDomain,
    punycodeShown: idn && !host.unicodeSafe,
  };
}
