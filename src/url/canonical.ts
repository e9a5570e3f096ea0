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

// A web URL the WHATWG parser gives back exactly as written: lower-case `http` or `https`, a host
// of lower-case letters, digits and hyphens in labels of 1 to 63 characters, none starting with
// `xn--` (the parser validates those as IDNA) and the last starting with a letter (else the
// parser may read the host as an IPv4 number), no port, userinfo, percent-escape or backslash,
// then a path, query and fragment of characters that none of them percent-encodes (the query's
// set also encodes `'`, so it is left out everywhere). Everything it matches is also `PLAIN`.
const CANONICAL_WEB_URL =
  /^https?:\/\/(?:(?!xn--)[a-z0-9-]{1,63}\.)*(?!xn--)[a-z][a-z0-9-]{0,62}\/[\w\-.~!$&()*+,;=:/]*(?:\?[\w\-.~!$&()*+,;=:/?]*)?(?:#[\w\-.~!$&()*+,;=:/?#]*)?$/;
// A `.` or `..` path segment, which the parser would remove.
const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/;
const MAX_HOST = 253;

/**
 * The view of `input` when the WHATWG parser would return it unchanged, so its components can be
 * cut out of the text; null otherwise (then `new URL` decides). Most URLs a server sends are
 * already canonical, and this costs a fraction of the parser.
 */
export function canonicalView(input: string): UrlView | null {
  if (!CANONICAL_WEB_URL.test(input)) return null;
  const https = input.charCodeAt(4) === 0x73;
  const hostStart = https ? 8 : 7;
  const pathStart = input.indexOf('/', hostStart);
  // Longer hosts are valid URLs too, but not worth a rule of their own here.
  if (pathStart - hostStart > MAX_HOST) return null;
  // The fragment may hold `?`; the path holds neither `?` nor `#`.
  const hashAt = input.indexOf('#', pathStart);
  const questionAt = input.indexOf('?', pathStart);
  const queryAt = questionAt >= 0 && (hashAt < 0 || questionAt < hashAt) ? questionAt : -1;
  const pathname = input.slice(pathStart, queryAt >= 0 ? queryAt : hashAt >= 0 ? hashAt : input.length);
  if (pathname.includes('/.') && DOT_SEGMENT.test(pathname)) return null;
  const queryEnd = hashAt >= 0 ? hashAt : input.length;
  return {
    href: input,
    protocol: https ? 'https:' : 'http:',
    username: '',
    password: '',
    hostname: input.slice(hostStart, pathStart),
    port: '',
    pathname,
    // The getters give '' for a lone `?` or `#`.
    search: queryAt >= 0 && queryEnd - queryAt > 1 ? input.slice(queryAt, queryEnd) : '',
    hash: hashAt >= 0 && input.length - hashAt > 1 ? input.slice(hashAt) : '',
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
  // Most inputs hold no tab or newline and start and end with a visible character: the
  // replacements would scan them for nothing.
  let text = input.indexOf('\t') < 0 && input.indexOf('\n') < 0 && input.indexOf('\r') < 0 ? input : input.replace(TAB_OR_NEWLINE, '');
  if (text.length > 0 && (text.charCodeAt(0) <= 0x20 || text.charCodeAt(text.length - 1) <= 0x20))
    text = text.replace(C0_OR_SPACE_EDGES, '');
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
