/**
 * The content gate: one pass over a URL's query, fragment and path that cuts out only the parts a
 * content rule can read (`ContentParts.loud`), in the order and under the 256-part cap in which
 * the straightforward splitter (`urlParts` of the reference engine in test/url/reference/) cuts
 * every part, and notes on the way what two rules need from every part: whether the URL is an
 * OAuth authorization request, and the parameters of an authorization response.
 *
 * Most parts are short values under names no list knows, and no credential, personal-data or
 * redirect rule can match them: every rule of `credentials.ts`, `personal.ts` and `redirects.ts`
 * needs a name one of their lists knows, a name that is itself shaped like a secret (`NameInfo.secret`), a
 * path segment after a secret-naming one, or a value that one of the value rules can read
 * (`mayCarryData`). Such parts are judged where they are written, without cutting a string, and
 * only the parts that pass are decoded and built (test/url/differential.test.ts holds the gated
 * engine to the ungated reference).
 */
import type { UrlView } from './canonical.js';
import {
  isAuthorizationResponseName,
  isSecretContext,
  mayBePrefixedSecret,
  mayBeSecretContextShape,
  mayStartPrefixedSecret,
  nameClass,
  shapedSecret,
} from './credentials.js';
import { decode, MAX_PARTS, type NameFacts, normalizeName, type PartLocation, plusToSpace, type UrlPart } from './parts.js';
import { nameRules, readsByName } from './personal.js';
import { isRedirectName } from './redirects.js';

/** What the content rules read from a URL (`contentParts`). */
export interface ContentParts {
  /** The parts that pass the gate, in `urlParts` order. */
  readonly loud: readonly UrlPart[];
  /** An OAuth 2.0 / OIDC authorization request: a `client_id` plus one of its companions in the query. */
  readonly oauth: boolean;
  /** Query and fragment parameters named `code`, `state`, `iss` or `session_state`, in order, loud or not. */
  readonly response: readonly UrlPart[];
}

const OAUTH_MARKERS = ['responsetype', 'redirecturi', 'codechallenge', 'scope', 'request', 'requesturi'];
/** The shortest marker's length: shorter keys (`q`, `id`) skip the list. */
const MIN_OAUTH_MARKER = 5;

const NO_PARTS: readonly UrlPart[] = Object.freeze([]);
const NOTHING: ContentParts = Object.freeze({ loud: NO_PARTS, oauth: false, response: NO_PARTS });

// What a parameter name tells the pass, as bits: a credential or personal-data rule reads it by
// name, the authorization-response rule reads it, it is an OAuth client id, it is another OAuth
// marker, it is a redirect-like name (whose rule reads only a value that can be a URL).
const KNOWN = 1;
const RESPONSE = 2;
const CLIENT_ID = 4;
const MARKER = 8;
const REDIRECT = 16;

/** What the rules' name lists say about `key`. */
function factsOf(key: string): NameFacts {
  return { credential: nameClass(key), personal: nameRules(key), redirect: isRedirectName(key) };
}

/** The facts of the empty key: those of a part without a name (a path segment, the fragment). */
const UNNAMED: NameFacts = Object.freeze(factsOf(''));

function readName(key: string, facts: NameFacts): number {
  let bits = facts.credential !== null || readsByName(facts.personal) ? KNOWN : facts.redirect ? REDIRECT : 0;
  if (isAuthorizationResponseName(key)) bits |= RESPONSE;
  if (key === 'clientid' || key === 'clientkey') bits |= CLIENT_ID;
  else if (key.length >= MIN_OAUTH_MARKER && OAUTH_MARKERS.includes(key)) bits |= MARKER;
  return bits;
}

/** A parameter name's normalised key, what it tells (`readName`), and the secret the name itself is shaped like. */
interface NameInfo {
  /** The name as written (decoded). */
  readonly name: string;
  /** Its character codes (`writtenAt`). */
  readonly codes: Uint16Array;
  readonly key: string;
  readonly facts: NameFacts;
  readonly bits: number;
  /** The rule of `shapedSecret(name)`, the one rule that reads a name as a value; null for most names. */
  readonly secret: string | null;
}

/** `NameInfo` by the name as written (it reads only fixed lists and the name), kept for the names seen last. */
function nameInfo(name: string): NameInfo {
  const known = NAMES.get(name);
  if (known !== undefined) return known;
  const key = normalizeName(name);
  const facts = factsOf(key);
  const info: NameInfo = {
    name,
    codes: codesOf(name),
    key,
    facts,
    bits: readName(key, facts),
    secret: nameMayBeSecret(name) ? (shapedSecret(name)?.rule ?? null) : null,
  };
  // Servers use a few names over and over; a name flood only restarts the memo, and long names are not kept.
  if (name.length <= MAX_KEPT_NAME) {
    if (NAMES.size >= MAX_NAMES) NAMES.clear();
    NAMES.set(name, info);
  }
  return info;
}

const NAMES = new Map<string, NameInfo>();
const MAX_NAMES = 4096;
const MAX_KEPT_NAME = 64;

// In front of `NAMES`: the `NameInfo` of names written without escapes, one name a slot; a name
// that finds its slot taken by another replaces it.
const SLOT_BITS = 10;
const SLOT_MASK = (1 << SLOT_BITS) - 1;
const SLOTS: (NameInfo | undefined)[] = new Array<NameInfo | undefined>(1 << SLOT_BITS).fill(undefined);

/** The slot of the name `text.slice(start, end)`: its length and its first, middle and last characters. */
function slotOf(text: string, start: number, end: number): number {
  const length = end - start;
  const mix = length * 0x9e5 + text.charCodeAt(start) * 0x3f + text.charCodeAt(start + (length >> 1)) * 0x7 + text.charCodeAt(end - 1);
  return mix & SLOT_MASK;
}

/** True when `text` holds the name of character codes `codes` at `start` (read in place: most names are short). */
function writtenAt(codes: Uint16Array, text: string, start: number): boolean {
  for (let i = 0; i < codes.length; i++) if (codes[i] !== text.charCodeAt(start + i)) return false;
  return true;
}

/** The character codes of `name`, which `writtenAt` compares faster than the characters of a string cut out of a URL. */
function codesOf(name: string): Uint16Array {
  const codes = new Uint16Array(name.length);
  for (let i = 0; i < name.length; i++) codes[i] = name.charCodeAt(i);
  return codes;
}

/** Whether `shapedSecret` can match a parameter name itself: 16 characters, or 12 that start like a prefixed key. */
function nameMayBeSecret(name: string): boolean {
  return name.length >= 16 || (name.length >= 12 && mayBePrefixedSecret(name));
}

/**
 * What the value rules need, whatever the name: 16 characters (secret shapes, base64 e-mail), an
 * `@`, `(` or `[` (e-mail), seven digits (phone and card numbers), 15 characters with two digits
 * (IBAN), or 12 characters that start like a prefixed key or like base64 of "http" (`a`). Read on
 * `text.slice(start, end)` in place. The phone rules read the part's `literal`, which differs from
 * `value` only where a `+` became a space: the same length and the same digits; and a `+` read as
 * a space changes neither the first character's `a` nor a key prefix.
 */
function mayCarryData(text: string, start: number, end: number): boolean {
  if (end - start >= 16) return true;
  let digits = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits++;
    else if (c === 0x40 || c === 0x28 || c === 0x5b) return true;
  }
  return valueRulesMayRead(text, start, end, digits, false);
}

/**
 * What the redirect rule needs of a redirect-like parameter's value, read as written on
 * `text.slice(start, end)`: it decodes the value, reads `+` as a space and trims it, then looks
 * for a scheme (a `:`, or `%3A` when double-encoded) or two slashes or backslashes in front (a
 * protocol-relative URL). Without an escape, a `:` or a character beyond ASCII (where `trim`
 * reaches further), the value decodes to itself but for its spaces.
 */
function mayBeTarget(text: string, start: number, end: number): boolean {
  let first = -1;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a || c === 0x25 || c >= 0x80) return true;
    if (first < 0 && c !== 0x2b && c !== 0x20 && (c < 0x09 || c > 0x0d)) first = i;
  }
  return first >= 0 && first + 1 < end && isSlash(text.charCodeAt(first)) && isSlash(text.charCodeAt(first + 1));
}

/** A slash or a backslash. */
function isSlash(c: number): boolean {
  return c === 0x2f || c === 0x5c;
}

/**
 * The condition of `mayCarryData` once a pass has counted the digits of `text.slice(start, end)`
 * and seen whether it holds an `@`, `(` or `[` (`hint`).
 */
function valueRulesMayRead(text: string, start: number, end: number, digits: number, hint: boolean): boolean {
  return valueRulesMayReadCounted(end - start, digits, hint, text.charCodeAt(start), text.charCodeAt(start + 1));
}

/**
 * The value rules' condition itself, on what a pass counted of a value: its length, its digits,
 * whether it holds an `@`, `(` or `[`, and its first two character codes (NaN past the end).
 */
function valueRulesMayReadCounted(length: number, digits: number, hint: boolean, first: number, second: number): boolean {
  if (length >= 16 || hint || digits >= 7 || (length >= 15 && digits >= 2)) return true;
  return length >= 12 && (first === 0x61 || mayStartPrefixedSecret(first, second));
}

/** The hex digit a character code spells, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

// What `readEscaped` tells.
const QUIET = 0;
const LOUD = 1;
const UNREAD = 2;

/**
 * `mayCarryData` of a value with escapes once decoded, and when `redirect`, `mayBeTarget` of it,
 * read in place when every `%` is followed by two hex digits of an ASCII character: then
 * `decodeURIComponent` turns each escape into that one character and nothing else changes.
 * `UNREAD` otherwise (an escape that does not decode, or UTF-8): the caller decodes.
 */
function readEscaped(text: string, start: number, end: number, redirect: boolean): number {
  let length = 0;
  let digits = 0;
  let first = Number.NaN;
  let second = Number.NaN;
  // For `mayBeTarget`: the slashes that start the value past the blanks `trim` drops (a `+` is one).
  let slashes = 0;
  let leadRead = false;
  for (let i = start; i < end; i++) {
    let c = text.charCodeAt(i);
    const plus = c === 0x2b;
    if (c === 0x25) {
      const high = i + 2 < end ? hexValue(text.charCodeAt(i + 1)) : -1;
      const low = high >= 0 && high < 8 ? hexValue(text.charCodeAt(i + 2)) : -1;
      if (low < 0) return UNREAD;
      c = high * 16 + low;
      i += 2;
    } else if (c >= 0x80) {
      return UNREAD;
    }
    if (length === 0) first = c;
    else if (length === 1) second = c;
    // Letting a part through that no rule then matches changes nothing: the first sign settles it.
    if (++length >= 16) return LOUD;
    if (c >= 0x30 && c <= 0x39) {
      if (++digits >= 7) return LOUD;
    } else if (c === 0x40 || c === 0x28 || c === 0x5b) {
      return LOUD;
    } else if (c === 0x3a || c === 0x25) {
      if (redirect) return LOUD;
    }
    if (!leadRead) {
      const blank = plus || c === 0x20 || (c >= 0x09 && c <= 0x0d);
      if (slashes === 0 && blank) continue;
      if (isSlash(c)) {
        if (++slashes === 2 && redirect) return LOUD;
        leadRead = slashes === 2;
      } else {
        leadRead = true;
      }
    }
  }
  return valueRulesMayReadCounted(length, digits, false, first, second) ? LOUD : QUIET;
}

// What one pass over a path segment tells: the value gate lets it through (`mayCarryData`, read
// as written), and its normalised name (`normalizeName`: lower-case letters and digits) can be a
// secret-naming segment, told from its first letter and length without building it (text with
// escapes or beyond ASCII is normalised for real when the next segment asks).
const LOUD_VALUE = 1;
const MAY_BE_CONTEXT = 2;

// What each ASCII character is to `segmentBits` (0: nothing it counts).
const SEGMENT_LETTER = 1;
const SEGMENT_DIGIT = 2;
const SEGMENT_HINT = 3;
const SEGMENT_RAW = 4;
const SEGMENT_CLASS = new Uint8Array(128);
for (let c = 0x41; c <= 0x5a; c++) {
  SEGMENT_CLASS[c] = SEGMENT_LETTER;
  SEGMENT_CLASS[c + 0x20] = SEGMENT_LETTER;
}
for (let c = 0x30; c <= 0x39; c++) SEGMENT_CLASS[c] = SEGMENT_DIGIT;
for (const c of [0x40, 0x28, 0x5b]) SEGMENT_CLASS[c] = SEGMENT_HINT;
SEGMENT_CLASS[0x25] = SEGMENT_RAW;

function segmentBits(text: string, start: number, end: number): number {
  let digits = 0;
  let hint = false;
  // The first letter (lower-cased) or digit, and how many letters and digits: what `normalizeName` keeps.
  let first = -1;
  let letters = 0;
  let raw = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    const kind = c < 0x80 ? SEGMENT_CLASS[c] : SEGMENT_RAW;
    if (kind === SEGMENT_LETTER) {
      if (first < 0) first = c | 0x20;
      letters++;
    } else if (kind === SEGMENT_DIGIT) {
      digits++;
      if (first < 0) first = c;
      letters++;
    } else if (kind === SEGMENT_HINT) {
      hint = true;
    } else if (kind === SEGMENT_RAW) {
      raw = true;
    }
  }
  const bits = raw || (letters > 0 && mayBeSecretContextShape(first, letters)) ? MAY_BE_CONTEXT : 0;
  return valueRulesMayRead(text, start, end, digits, hint) ? bits | LOUD_VALUE : bits;
}

/** The parts of a URL that the content rules can read, cut in one pass. */
export function contentParts(url: UrlView): ContentParts {
  const pathname = url.pathname;
  const search = url.search;
  const hash = url.hash;
  if (pathname === '/' && search === '' && hash === '') return NOTHING;
  // The pass reads the path, query and fragment where they stand in `href`, which the WHATWG
  // serialisation ends with (a canonical view's `href` is the input itself): a string cut out of
  // another costs more to read a character of than the whole one does. A lone `?` or `#` is in
  // `href` but not in `search` or `hash`.
  const href = url.href;
  const hashStart = href.length - hash.length;
  const queryEnd = hash === '' && href.charCodeAt(hashStart - 1) === 0x23 ? hashStart - 1 : hashStart;
  const queryStart = queryEnd - search.length;
  const pathEnd = search === '' && href.charCodeAt(queryStart - 1) === 0x3f ? queryStart - 1 : queryStart;
  const scan = new Scan();
  if (search.length > 1) scan.params(href, queryStart + 1, queryEnd, 'query', false);
  if (hash.length > 1) {
    scan.fragment(href, hashStart + 1);
    // `#access_token=...&state=...`, or a client-side route with its own query (`#/cb?x=1`).
    const q = href.indexOf('?', hashStart + 1);
    const params = q >= 0 ? q + 1 : hashStart + 1;
    if (href.indexOf('=', params) >= 0) scan.params(href, params, href.length, 'fragment', false);
  }
  scan.path(href, pathEnd - pathname.length, pathEnd);
  if (scan.loud === null && scan.response === null) return scan.clientId && scan.marker ? { ...NOTHING, oauth: true } : NOTHING;
  return { loud: scan.loud ?? NO_PARTS, oauth: scan.clientId && scan.marker, response: scan.response ?? NO_PARTS };
}

/**
 * Where one character occurs next in a text read left to right: the first one at or after `from`
 * in `text` (-1 for none). The pieces of a text are asked in order, so one search answers for
 * every piece up to the occurrence it found (a search from each piece would read the rest of a
 * long query again for every parameter after its last escape).
 */
class NextChar {
  private text = '';
  private from = 0;
  private at = -1;

  constructor(private readonly char: string) {}

  /** True when `text.slice(start, end)` holds the character. */
  within(text: string, start: number, end: number): boolean {
    let at = this.at;
    if (text !== this.text || start < this.from || (at >= 0 && at < start)) {
      at = text.indexOf(this.char, start);
      this.text = text;
      this.from = start;
      this.at = at;
    }
    return at >= 0 && at < end;
  }
}

// Shared by every pass: a text never changes, so what was found in it stays true whichever pass asks.
const PERCENT = new NextChar('%');
const PLUS = new NextChar('+');

/** The state of one pass: what `urlParts` would have cut so far (`count`), and what passed. */
class Scan {
  count = 0;
  loud: UrlPart[] | null = null;
  response: UrlPart[] | null = null;
  clientId = false;
  marker = false;

  private keep(part: UrlPart): void {
    if (this.loud === null) this.loud = [part];
    else this.loud.push(part);
  }

  /** True when `text.slice(start, end)` holds a `%`. */
  private escaped(text: string, start: number, end: number): boolean {
    return PERCENT.within(text, start, end);
  }

  /** True when `text.slice(start, end)` holds a `+`. */
  private plusIn(text: string, start: number, end: number): boolean {
    return PLUS.within(text, start, end);
  }

  /** `name=value` pairs of `text` from `from` to `to`, split at `&` (and `;` for matrix parameters). */
  params(text: string, from: number, to: number, where: PartLocation, semicolons: boolean): void {
    let start = from;
    while (start <= to) {
      let end = text.indexOf('&', start);
      if (end < 0 || end > to) end = to;
      if (semicolons) {
        const semicolon = text.indexOf(';', start);
        if (semicolon >= 0 && semicolon < end) end = semicolon;
      }
      if (end > start && this.count < MAX_PARTS) this.param(text, start, end, where);
      start = end + 1;
    }
  }

  private param(text: string, start: number, end: number, where: PartLocation): void {
    this.count++;
    let eq = text.indexOf('=', start);
    if (eq < 0 || eq > end) eq = end;
    // A name already seen without escapes is looked up in place (`SLOTS`) by its length and three
    // of its characters, and read once to compare: a hit is that name, escapes and all.
    const length = eq - start;
    const slot = slotOf(text, start, eq);
    let info = length === 0 ? undefined : SLOTS[slot];
    if (info === undefined || info.codes.length !== length || !writtenAt(info.codes, text, start)) {
      const rawName = text.slice(start, eq);
      const name = decode(plusToSpace(rawName));
      info = nameInfo(name);
      // A name as written is its own `NameInfo.name` only when no escape or `+` changed it.
      if (name === rawName && length > 0 && length <= MAX_KEPT_NAME) SLOTS[slot] = info;
    }
    const { name, key, facts, bits, secret } = info;
    if (where === 'query') {
      if (bits & CLIENT_ID) this.clientId = true;
      else if (bits & MARKER) this.marker = true;
    }
    const response = where !== 'path' && (bits & RESPONSE) !== 0;
    const valueStart = eq < end ? eq + 1 : end;
    let loud = (bits & KNOWN) !== 0 || secret !== null;
    let literal: string | null = null;
    const valueEscaped = this.escaped(text, valueStart, end);
    if (!loud) {
      // The redirect rule reads query and fragment parameters only.
      const redirect = (bits & REDIRECT) !== 0 && where !== 'path';
      if (!valueEscaped) {
        loud = (redirect && mayBeTarget(text, valueStart, end)) || mayCarryData(text, valueStart, end);
      } else {
        const inPlace = readEscaped(text, valueStart, end, redirect);
        if (inPlace !== UNREAD) {
          loud = inPlace === LOUD;
        } else {
          // `mayBeTarget` lets any escape through.
          literal = decode(text.slice(valueStart, end));
          loud = redirect || mayCarryData(literal, 0, literal.length);
        }
      }
    }
    if (!loud && !response) return;
    const rawValue = text.slice(valueStart, end);
    literal ??= valueEscaped ? decode(rawValue) : rawValue;
    const value = this.plusIn(text, valueStart, end) ? decode(plusToSpace(rawValue)) : literal;
    const part: UrlPart = { where, name, key, value, literal, context: '', nameSecret: secret, facts };
    if (loud) this.keep(part);
    if (response) {
      if (this.response === null) this.response = [part];
      else this.response.push(part);
    }
  }

  /** The fragment as a whole, `text` from `from` to its end (cut whatever the count: `urlParts` does). */
  fragment(text: string, from: number): void {
    this.count++;
    const to = text.length;
    let value: string | null = null;
    if (this.escaped(text, from, to)) {
      value = decode(text.slice(from));
      if (!mayCarryData(value, 0, value.length)) return;
    } else if (!mayCarryData(text, from, to)) {
      return;
    }
    value ??= text.slice(from);
    this.keep({ where: 'fragment', name: null, key: '', value, literal: value, context: '', nameSecret: null, facts: UNNAMED });
  }

  /** Path segments of the path `text.slice(from, to)`, with the matrix parameters inside them (`/app;jsessionid=...`). */
  path(text: string, from: number, to: number): void {
    // The last segment head, as a range of `text`: the context of the next one.
    let previousStart = -1;
    let previousEnd = -1;
    let previousMayBeContext = false;
    // Most paths hold no `;`: then no segment has matrix parameters to look for.
    let semicolon = text.indexOf(';', from);
    let start = from;
    while (start <= to) {
      let end = text.indexOf('/', start);
      if (end < 0 || end > to) end = to;
      if (end > start && this.count < MAX_PARTS) {
        if (semicolon >= 0 && semicolon < start) semicolon = text.indexOf(';', start);
        const headEnd = semicolon >= 0 && semicolon < end ? semicolon : end;
        if (headEnd < end) this.params(text, headEnd + 1, end, 'path', true);
        if (headEnd > start) {
          previousMayBeContext = this.segment(text, start, headEnd, previousStart, previousEnd, previousMayBeContext);
          previousStart = start;
          previousEnd = headEnd;
        }
      }
      start = end + 1;
    }
  }

  /** One segment head; true when its own name may make the next segment a credential candidate. */
  private segment(
    text: string,
    start: number,
    end: number,
    previousStart: number,
    previousEnd: number,
    previousMayBeContext: boolean,
  ): boolean {
    this.count++;
    const bits = segmentBits(text, start, end);
    let context: string | null = null;
    let loud = false;
    if (previousMayBeContext) {
      context = this.contextOf(text, previousStart, previousEnd);
      loud = context !== '' && isSecretContext(context);
    }
    let value: string | null = null;
    if (!loud) {
      if (this.escaped(text, start, end)) {
        value = decode(text.slice(start, end));
        loud = mayCarryData(value, 0, value.length);
      } else {
        loud = (bits & LOUD_VALUE) !== 0;
      }
    }
    if (loud) {
      value ??= decode(text.slice(start, end));
      context ??= previousStart >= 0 ? this.contextOf(text, previousStart, previousEnd) : '';
      this.keep({ where: 'path', name: null, key: '', value, literal: value, context, nameSecret: null, facts: UNNAMED });
    }
    return (bits & MAY_BE_CONTEXT) !== 0;
  }

  private contextOf(text: string, start: number, end: number): string {
    const head = text.slice(start, end);
    return normalizeName(decode(head));
  }
}
