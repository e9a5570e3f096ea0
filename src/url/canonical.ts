/**
 * Canonicalisation: the WHATWG URL parser decides what a browser will actually open (IDNA
 * mapping, fullwidth and ideographic dots, backslashes, tabs and newlines, IPv4 notations), so
 * every later check reads its output. The raw authority is also cut out of the original text,
 * because some tricks are visible only there (`0x7f.1`, `%70aypal.com`, a bare `@`).
 */

export interface RawAuthority {
  /** Text before the last `@` of the authority, or null when there is no `@`. */
  readonly userinfo: string | null;
  /** The host as written (brackets kept for IPv6), not lower-cased. */
  readonly host: string;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const TAB_OR_NEWLINE = /[\t\n\r]/g;
const C0_OR_SPACE_EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const SPECIAL_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);

/**
 * The components of a parsed URL, read once: each `URL` getter slices the serialised URL again,
 * and the checks read most components several times.
 */
export interface UrlView {
  readonly url: URL;
  readonly href: string;
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly hostname: string;
  readonly port: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
}

export function viewOf(url: URL): UrlView {
  return {
    url,
    href: url.href,
    protocol: url.protocol,
    username: url.username,
    password: url.password,
    hostname: url.hostname,
    port: url.port,
    pathname: url.pathname,
    search: url.search,
    hash: url.hash,
  };
}

/** Parses with the WHATWG parser; null when it is not an absolute URL. */
export function parseUrl(input: string): URL | null {
  try {
    return new URL(input);
  } catch {
    return null;
  }
}

/**
 * The authority of `input` as written, following the WHATWG split points (for special schemes
 * `\` ends the authority like `/`). Null when the URL has no authority.
 */
export function rawAuthority(input: string): RawAuthority | null {
  const text = input.replace(TAB_OR_NEWLINE, '').replace(C0_OR_SPACE_EDGES, '');
  const scheme = SCHEME.exec(text);
  if (scheme === null) return null;
  const special = SPECIAL_SCHEMES.has(scheme[1]!.toLowerCase());
  let i = scheme[0].length;
  if (special) {
    while (i < text.length && (text[i] === '/' || text[i] === '\\')) i++;
  } else if (text.startsWith('//', i)) {
    i += 2;
  } else {
    return null;
  }
  let end = i;
  while (end < text.length) {
    const ch = text[end]!;
    if (ch === '/' || ch === '?' || ch === '#' || (special && ch === '\\')) break;
    end++;
  }
  const authority = text.slice(i, end);
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at) : null;
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  let host: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    host = close >= 0 ? hostPort.slice(0, close + 1) : hostPort;
  } else {
    const colon = hostPort.indexOf(':');
    host = colon >= 0 ? hostPort.slice(0, colon) : hostPort;
  }
  return { userinfo, host };
}
