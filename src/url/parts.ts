/**
 * The pieces of a URL that can carry data: query parameters, fragment parameters (OAuth's
 * implicit flow puts tokens there), the fragment as a whole, and path segments; each decoded once.
 */
import type { UrlView } from './canonical.js';

export type PartLocation = 'query' | 'fragment' | 'path';

export interface UrlPart {
  readonly where: PartLocation;
  /** Parameter name as written (decoded), or null for a path segment or a bare fragment. */
  readonly name: string | null;
  /** Lower-case name without separators (`Access-Token` → `accesstoken`); '' when no name. */
  readonly key: string;
  /** Value with percent-escapes decoded and `+` read as a space (form encoding). */
  readonly value: string;
  /** Value with percent-escapes decoded and `+` kept (phone numbers in E.164). */
  readonly literal: string;
  /** For a path segment: the normalised segment before it (`/password/<value>`); '' otherwise. */
  readonly context: string;
}

const MAX_PARTS = 256;

function decode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** True when `name` is lower-case letters and digits only (`/^[a-z0-9]*$/`), so already normalised. */
function isNormalized(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39))) return false;
  }
  return true;
}

export function normalizeName(name: string): string {
  if (isNormalized(name)) return name;
  if (name.length > MAX_REMEMBERED) return name.toLowerCase().replace(/[^a-z0-9]/g, '');
  let key = NORMALIZED.get(name);
  if (key === undefined) {
    key = name.toLowerCase().replace(/[^a-z0-9]/g, '');
    // Servers use a few names over and over (`client_id`, `utm_source`); a name flood only restarts the memo.
    if (NORMALIZED.size >= MAX_NORMALIZED) NORMALIZED.clear();
    NORMALIZED.set(name, key);
  }
  return key;
}

/** `normalizeName` of the names seen last that were not already normalised. */
const NORMALIZED = new Map<string, string>();
const MAX_NORMALIZED = 4096;
/** Longer names are normalised each time rather than kept. */
const MAX_REMEMBERED = 64;

function plusToSpace(text: string): string {
  return text.includes('+') ? text.replace(/\+/g, ' ') : text;
}

// The splitting below walks the text with `indexOf` instead of `split`: `split` allocates an
// array per call and costs more than the rest of this module on a typical URL.

/**
 * Which escapes the URL holds at all: most hold no `%` and no `+`, and then no part needs
 * decoding, which saves looking for them in every name and value.
 */
interface Escapes {
  readonly percent: boolean;
  readonly plus: boolean;
}

/**
 * Parses `text` from `from` on as `name=value` pairs separated by `&` (and `;` for matrix
 * parameters), cutting names and values straight out of `text`.
 */
function parseParams(text: string, from: number, where: PartLocation, out: UrlPart[], escapes: Escapes, semicolons = false): void {
  let start = from;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (semicolons) {
      const semicolon = text.indexOf(';', start);
      if (semicolon >= 0 && semicolon < end) end = semicolon;
    }
    if (end > start && out.length < MAX_PARTS) {
      let eq = start;
      while (eq < end && text.charCodeAt(eq) !== 0x3d) eq++;
      const rawName = text.slice(start, eq);
      const rawValue = eq < end ? text.slice(eq + 1, end) : '';
      const spaced = escapes.plus ? plusToSpace(rawName) : rawName;
      const name = escapes.percent ? decode(spaced) : spaced;
      const literal = escapes.percent ? decode(rawValue) : rawValue;
      const value = escapes.plus && rawValue.includes('+') ? decode(plusToSpace(rawValue)) : literal;
      out.push({ where, name, key: normalizeName(name), value, literal, context: '' });
    }
    start = end + 1;
  }
}

/** Every data-carrying part of a parsed URL, at most 256. */
export function urlParts(url: UrlView): UrlPart[] {
  const out: UrlPart[] = [];
  const pathname = url.pathname;
  const search = url.search;
  const hash = url.hash;
  if (pathname === '/' && search === '' && hash === '') return out;
  const escapes: Escapes = { percent: url.href.includes('%'), plus: url.href.includes('+') };
  if (search.length > 1) parseParams(search, 1, 'query', out, escapes);
  if (hash.length > 1) {
    const fragment = hash.slice(1);
    const decoded = escapes.percent ? decode(fragment) : fragment;
    out.push({ where: 'fragment', name: null, key: '', value: decoded, literal: decoded, context: '' });
    // `#access_token=...&state=...`, or a client-side route with its own query (`#/cb?x=1`).
    const q = hash.indexOf('?', 1);
    const params = q >= 0 ? q + 1 : 1;
    if (hash.indexOf('=', params) >= 0) parseParams(hash, params, 'fragment', out, escapes);
  }
  let context = '';
  let start = 0;
  while (start <= pathname.length) {
    let end = pathname.indexOf('/', start);
    if (end < 0) end = pathname.length;
    if (end > start && out.length < MAX_PARTS) {
      const segment = pathname.slice(start, end);
      // Matrix parameters (`/app;jsessionid=...`) are named values inside a segment.
      const semicolon = segment.indexOf(';');
      const head = semicolon >= 0 ? segment.slice(0, semicolon) : segment;
      if (semicolon >= 0) parseParams(segment, semicolon + 1, 'path', out, escapes, true);
      if (head !== '') {
        const decoded = escapes.percent ? decode(head) : head;
        out.push({ where: 'path', name: null, key: '', value: decoded, literal: decoded, context });
        context = normalizeName(decoded);
      }
    }
    start = end + 1;
  }
  return out;
}

/** How a part is named in a message: never its value. */
export function describePart(part: UrlPart): string {
  switch (part.where) {
    case 'query':
      return `query parameter "${truncateName(part.name ?? '')}"`;
    case 'fragment':
      return part.name === null ? 'the fragment' : `fragment parameter "${truncateName(part.name)}"`;
    case 'path':
      return part.name === null ? 'the path' : `path parameter "${truncateName(part.name)}"`;
  }
}

function truncateName(name: string): string {
  const clean = name.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 40 ? clean.slice(0, 40) + '…' : clean;
}
