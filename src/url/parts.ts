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

const NORMALIZED = /^[a-z0-9]*$/;

export function normalizeName(name: string): string {
  if (NORMALIZED.test(name)) return name;
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function plusToSpace(text: string): string {
  return text.includes('+') ? text.replace(/\+/g, ' ') : text;
}

function parseParams(text: string, where: PartLocation, out: UrlPart[]): void {
  for (const pair of text.split('&')) {
    if (pair === '' || out.length >= MAX_PARTS) continue;
    const eq = pair.indexOf('=');
    const rawName = eq >= 0 ? pair.slice(0, eq) : pair;
    const rawValue = eq >= 0 ? pair.slice(eq + 1) : '';
    const name = decode(plusToSpace(rawName));
    const literal = decode(rawValue);
    out.push({ where, name, key: normalizeName(name), value: rawValue.includes('+') ? decode(plusToSpace(rawValue)) : literal, literal, context: '' });
  }
}

/** Every data-carrying part of a parsed URL, at most 256. */
export function urlParts(url: UrlView): UrlPart[] {
  const out: UrlPart[] = [];
  const pathname = url.pathname;
  const search = url.search;
  const hash = url.hash;
  if (pathname === '/' && search === '' && hash === '') return out;
  if (search.length > 1) parseParams(search.slice(1), 'query', out);
  if (hash.length > 1) {
    const fragment = hash.slice(1);
    const decoded = decode(fragment);
    out.push({ where: 'fragment', name: null, key: '', value: decoded, literal: decoded, context: '' });
    // `#access_token=...&state=...`, or a client-side route with its own query (`#/cb?x=1`).
    const q = fragment.indexOf('?');
    const params = q >= 0 ? fragment.slice(q + 1) : fragment;
    if (params.includes('=')) parseParams(params, 'fragment', out);
  }
  let context = '';
  for (const segment of pathname.split('/')) {
    if (segment === '' || out.length >= MAX_PARTS) continue;
    // Matrix parameters (`/app;jsessionid=...`) are named values inside a segment.
    const semicolon = segment.indexOf(';');
    const head = semicolon >= 0 ? segment.slice(0, semicolon) : segment;
    if (semicolon >= 0) parseParams(segment.slice(semicolon + 1).replaceAll(';', '&'), 'path', out);
    if (head === '') continue;
    const decoded = decode(head);
    out.push({ where: 'path', name: null, key: '', value: decoded, literal: decoded, context });
    context = normalizeName(decoded);
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
