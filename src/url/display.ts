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

function present(s: UrlSegment | null): number {
  return s === null ? 0 : 1;
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
  const { href, protocol, hash, search } = url;
  const schemeSegment = protocol === 'https:' ? HTTPS : protocol === 'http:' ? HTTP : segment('scheme', protocol.slice(0, -1));
  const scheme = schemeSegment.text;
  const hasAuthority = href.charCodeAt(protocol.length) === 0x2f && href.charCodeAt(protocol.length + 1) === 0x2f;
  const userinfo =
    url.username !== '' || url.password !== '' ? segment('userinfo', `${url.username}${url.password !== '' ? ':***' : ''}@`) : null;

  const ascii = url.hostname;
  const parts = host.parts;
  const showUnicode = parts !== null && parts.idn && host.unicodeSafe;
  const hostUnicode = ascii === '' ? null : parts !== null ? parts.unicode : ascii;
  const shown = shownHost(url, host);
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
  const port = url.port !== '' ? segment('port', `:${url.port}`) : null;
  const path = url.pathname !== '' ? segment('path', url.pathname) : null;
  // An empty query or fragment (`/?`, `/#`) is still part of the canonical URL; the delimiters
  // can only sit right before the fragment or at the very end.
  const emptyFragment = hash === '' && href.endsWith('#');
  const beforeFragment = href.length - (hash !== '' ? hash.length : emptyFragment ? 1 : 0);
  const queryText = search !== '' ? search : href.charCodeAt(beforeFragment - 1) === 0x3f ? '?' : '';
  const query = queryText !== '' ? segment('query', queryText) : null;
  const fragment = hash !== '' || emptyFragment ? segment('fragment', emptyFragment ? '#' : hash) : null;

  // One array of the exact size: growing it segment by segment allocates several times that.
  const count =
    2 + present(userinfo) + present(subdomain) + present(hostSegment) + present(port) + present(path) + present(query) + present(fragment);
  const segments = new Array<UrlSegment>(count);
  let at = 0;
  segments[at++] = schemeSegment;
  segments[at++] = hasAuthority ? AUTHORITY : NO_AUTHORITY;
  if (userinfo !== null) segments[at++] = userinfo;
  if (subdomain !== null) segments[at++] = subdomain;
  if (hostSegment !== null) segments[at++] = hostSegment;
  if (port !== null) segments[at++] = port;
  if (path !== null) segments[at++] = path;
  if (query !== null) segments[at++] = query;
  if (fragment !== null) segments[at++] = fragment;

  // Each segment is the canonical URL's own text at its place, except a masked password and a
  // Unicode host, or it leaves something out (a trailing dot of the host, the `/.` before a path
  // that starts with `//`), which shortens the whole. Without those two, equal length means the
  // segments spell `href`: use it rather than a concatenation.
  let length = 0;
  for (const s of segments) length += s.text.length;
  let full: string;
  if (url.password === '' && !showUnicode && length === href.length) {
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
    hostUnicode,
    hostAscii: ascii === '' ? null : ascii,
    registrableDomain,
    punycodeShown: parts !== null && parts.idn && !host.unicodeSafe,
  };
}
