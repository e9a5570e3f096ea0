/**
 * The pieces of a URL that can carry data: query parameters, fragment parameters (OAuth's
 * implicit flow puts tokens there), the fragment as a whole, and path segments (and the matrix
 * parameters inside them), each decoded once; `gate.ts` cuts them.
 */

export type PartLocation = 'query' | 'fragment' | 'path';

/** The class the credential rules give a parameter name (`credentials.ts`); null when they do not read it by name. */
export type CredentialNameClass = 'secret' | 'any' | 'strong' | 'weak' | null;

/** The kinds of personal data a parameter's name alone makes the personal-data rules look for (`personal.ts`). */
export type NamedPersonalKind = 'email' | 'identity' | 'birth-date' | 'ip-address' | 'location';

/** What the name lists of the personal-data and payment rules say about a parameter name (`personal.ts`). */
export interface PersonalNameRules {
  /** A postal-address name (`ADDRESS_NAME` and not `NOT_POSTAL`). */
  readonly postal: boolean;
  readonly kind: NamedPersonalKind | undefined;
  readonly phone: boolean;
  readonly card: boolean;
  readonly cardCode: boolean;
  readonly bank: boolean;
}

/**
 * What the rules' name lists say about a part's normalised name (`key`), read once per name: the
 * gate (`gate.ts`) keeps them with the name, so the rules do not look the name up again per part.
 */
export interface NameFacts {
  readonly credential: CredentialNameClass;
  readonly personal: PersonalNameRules;
  /** A redirect-like name (`redirects.ts`). */
  readonly redirect: boolean;
}

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
  /** For a named part: the rule of the secret its name itself is shaped like (`shapedSecret`), read once per name; null otherwise. */
  readonly nameSecret: string | null;
  /** What the name lists say about `key` (for a part without a name, about the empty key). */
  readonly facts: NameFacts;
}

/** How many parts a URL is cut into at most. */
export const MAX_PARTS = 256;

/** Percent-escapes decoded; text that does not decode stays as it is. */
export function decode(text: string): string {
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

/** `+` read as a space (form encoding). */
export function plusToSpace(text: string): string {
  return text.includes('+') ? text.replaceAll('+', ' ') : text;
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

// Printable ASCII, as most names are: nothing to replace.
const PRINTABLE = /^[\x20-\x7e]*$/;

function truncateName(name: string): string {
  const clean = PRINTABLE.test(name) ? name : name.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 40 ? clean.slice(0, 40) + '…' : clean;
}
