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

export interface DisplayHost {
  /** Host parts when the host is a domain name; null for IP literals, opaque or empty hosts. */
  readonly parts: HostParts | null;
  /** Show the Unicode form (every label judged safe and no look-alike). */
  readonly unicodeSafe: boolean;
}

/**
 * Builds the display of a parsed URL. The password of a userinfo is masked (`***`): userinfo is
 * shown only so the user sees that the URL carries it, and a secret never reaches a display
 * that may be logged.
 */
export function buildDisplay(url: UrlView, host: DisplayHost): UrlDisplay {
  const { href, protocol, hash, search } = url;
  const scheme = protocol.slice(0, -1);
  const segments: UrlSegment[] = [segment('scheme', scheme)];
  const hasAuthority = href.charCodeAt(protocol.length) === 0x2f && href.charCodeAt(protocol.length + 1) === 0x2f;
  segments.push(segment('separator', hasAuthority ? '://' : ':'));

  if (url.username !== '' || url.password !== '') {
    segments.push(segment('userinfo', `${url.username}${url.password !== '' ? ':***' : ''}@`));
  }

  const ascii = url.hostname;
  const parts = host.parts;
  const showUnicode = parts !== null && parts.idn && host.unicodeSafe;
  const hostUnicode = ascii === '' ? null : parts !== null ? parts.unicode : ascii;
  const shown = ascii === '' ? null : showUnicode ? parts!.unicode : ascii;
  let registrableDomain: string | null = null;

  if (shown !== null) {
    if (parts !== null && parts.registrable !== null) {
      registrableDomain = showUnicode ? parts.registrableUnicode! : parts.registrable;
      const sub = showUnicode ? parts.subdomainUnicode : parts.subdomain;
      if (sub !== '') segments.push(segment('subdomain', sub + '.'));
      segments.push(segment('registrable', registrableDomain, true));
    } else {
      segments.push(segment('host', shown, true));
    }
  }
  if (url.port !== '') segments.push(segment('port', `:${url.port}`));
  if (url.pathname !== '') segments.push(segment('path', url.pathname));
  // An empty query or fragment (`/?`, `/#`) is still part of the canonical URL; the delimiters
  // can only sit right before the fragment or at the very end.
  const emptyFragment = hash === '' && href.endsWith('#');
  const beforeFragment = href.length - (hash !== '' ? hash.length : emptyFragment ? 1 : 0);
  const query = search !== '' ? search : href.charCodeAt(beforeFragment - 1) === 0x3f ? '?' : '';
  if (query !== '') segments.push(segment('query', query));
  if (hash !== '' || emptyFragment) segments.push(segment('fragment', emptyFragment ? '#' : hash));

  let full = '';
  for (const s of segments) full += s.text;
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
