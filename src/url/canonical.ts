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

// What each ASCII character is in a URL the WHATWG parser gives back exactly as written. In the
// host: lower-case letters, digits and hyphens, the dots between labels and the `/` that ends it.
// After it: the characters that none of the path, query and fragment percent-encodes (the query's
// set also encodes `'`, so it is left out everywhere), `%`, which the parser keeps as it is, and
// the delimiters. Anything else (0) sends the URL to the parser.
const LDH = 1;
const HOST_DOT = 2;
const HOST_END = 3;
const ORDINARY = 1;
const DOT = 2;
const PERCENT = 3;
const QUESTION = 4;
const HASH = 5;
const ORDINARY_CHARS = '\\w\\-~!$&()*+,;=:/';
const ORDINARY_CHAR = new RegExp(`[${ORDINARY_CHARS}]`);
const HOST_CLASS = new Uint8Array(128);
const TAIL_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  HOST_CLASS[c] = /[a-z0-9-]/.test(ch) ? LDH : ch === '.' ? HOST_DOT : ch === '/' ? HOST_END : 0;
  TAIL_CLASS[c] =
    ch === '.' ? DOT : ch === '%' ? PERCENT : ch === '?' ? QUESTION : ch === '#' ? HASH : ORDINARY_CHAR.test(ch) ? ORDINARY : 0;
}
const MAX_HOST = 253;
const MAX_LABEL = 63;
// The characters `TAIL_CLASS` admits, from `lastIndex` to the end: a query or fragment from its
// delimiter on. From `LONG_TAIL` characters on, this one native scan costs less than the loop.
const QUERY_AND_FRAGMENT = new RegExp(`[${ORDINARY_CHARS}.%?#]*$`, 'y');
const LONG_TAIL = 48;
// `%2e` in a path can be a dot segment (`/%2e%2E/`), which the parser resolves.
const ENCODED_DOT = /%2e/i;

/** True when every character of `input` from `at` on is one `TAIL_CLASS` admits. */
function admitsRest(input: string, at: number): boolean {
  QUERY_AND_FRAGMENT.lastIndex = at;
  return QUERY_AND_FRAGMENT.test(input);
}

/** True when `input` has `xn--` at `at` (a Punycode label, which the parser validates as IDNA). */
function punycodeAt(input: string, at: number): boolean {
  return (
    input.charCodeAt(at) === 0x78 &&
    input.charCodeAt(at + 1) === 0x6e &&
    input.charCodeAt(at + 2) === 0x2d &&
    input.charCodeAt(at + 3) === 0x2d
  );
}

/** True when the path segment that starts at `at` with a `.` is `.` or `..`, which the parser removes. */
function dotSegmentAt(input: string, at: number): boolean {
  let next = at + 1;
  if (input.charCodeAt(next) === 0x2e) next++;
  if (next >= input.length) return true;
  const c = input.charCodeAt(next);
  return c === 0x2f || c === 0x3f || c === 0x23;
}

/**
 * The view of `input` when the WHATWG parser would return it unchanged, so its components can be
 * cut out of the text; null otherwise (then `new URL` decides). Most URLs a server sends are
 * already canonical, and one pass over the characters costs a fraction of the parser.
 *
 * Canonical here: lower-case `http` or `https`, `://`, a host of labels of 1 to 63 lower-case
 * letters, digits and hyphens, none starting with `xn--` (the parser validates those as IDNA), the
 * last starting with a letter (else the parser may read the host as an IPv4 number), at most 253
 * characters; no port or userinfo; then a `/` and a path, query and fragment of `TAIL_CLASS`
 * characters, with no `.` or `..` segment and no `%2e` in the path. Everything it accepts holds
 * printable ASCII only, and no `@` or backslash.
 */
export function canonicalView(input: string): UrlView | null {
  const length = input.length;
  if (input.charCodeAt(0) !== 0x68 || input.charCodeAt(1) !== 0x74 || input.charCodeAt(2) !== 0x74 || input.charCodeAt(3) !== 0x70)
    return null;
  const https = input.charCodeAt(4) === 0x73;
  const colon = https ? 5 : 4;
  if (input.charCodeAt(colon) !== 0x3a || input.charCodeAt(colon + 1) !== 0x2f || input.charCodeAt(colon + 2) !== 0x2f) return null;
  const hostStart = colon + 3;
  let labelStart = hostStart;
  let at = hostStart;
  for (; ; at++) {
    // A host that runs to the end has no path: the parser adds the `/`.
    if (at >= length) return null;
    const c = input.charCodeAt(at);
    const kind = c < 128 ? HOST_CLASS[c] : 0;
    if (kind === LDH) continue;
    if (kind === HOST_END) break;
    if (kind !== HOST_DOT || at === labelStart || at - labelStart > MAX_LABEL || punycodeAt(input, labelStart)) return null;
    labelStart = at + 1;
  }
  const pathStart = at;
  const first = input.charCodeAt(labelStart);
  if (
    pathStart - hostStart > MAX_HOST ||
    pathStart === labelStart ||
    pathStart - labelStart > MAX_LABEL ||
    first < 0x61 ||
    first > 0x7a ||
    punycodeAt(input, labelStart)
  )
    return null;
  // One pass over the path, query and fragment: the first `?` before any `#` starts the query,
  // the first `#` the fragment; after them both are ordinary. A long query or fragment (an
  // authorization request's query runs to hundreds of characters) is checked in one regex scan
  // instead, which costs half the loop per character but more to start.
  let queryAt = -1;
  let hashAt = -1;
  let percent = false;
  for (at++; at < length; at++) {
    const c = input.charCodeAt(at);
    const kind = c < 128 ? TAIL_CLASS[c] : 0;
    if (kind === ORDINARY) continue;
    if (kind === 0) return null;
    if (kind === HASH || kind === QUESTION) {
      if (queryAt >= 0 || hashAt >= 0) {
        if (kind === HASH && hashAt < 0) hashAt = at;
        continue;
      }
      // The path ends here.
      if (kind === HASH) hashAt = at;
      else queryAt = at;
      if (length - at >= LONG_TAIL) {
        if (!admitsRest(input, at)) return null;
        if (hashAt < 0) hashAt = input.indexOf('#', at);
        break;
      }
    } else if (queryAt < 0 && hashAt < 0) {
      // In the path: a `%` may spell a dot, a `.` may be a whole segment.
      if (kind === PERCENT) percent = true;
      else if (input.charCodeAt(at - 1) === 0x2f && dotSegmentAt(input, at)) return null;
    }
  }
  const pathEnd = queryAt >= 0 ? queryAt : hashAt >= 0 ? hashAt : length;
  const pathname = input.slice(pathStart, pathEnd);
  if (percent && ENCODED_DOT.test(pathname)) return null;
  const queryEnd = hashAt >= 0 ? hashAt : length;
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
    hash: hashAt >= 0 && length - hashAt > 1 ? input.slice(hashAt) : '',
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
  // Character codes, not one-character strings: a string per character of a non-ASCII host
  // would be allocated.
  if (special) {
    for (let c = text.charCodeAt(i); c === 0x2f || c === 0x5c; c = text.charCodeAt(i)) i++;
  } else if (text.startsWith('//', i)) {
    i += 2;
  } else {
    return null;
  }
  let end = i;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23 || (special && c === 0x5c)) break;
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
