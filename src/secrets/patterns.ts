/**
 * Secret-shaped values: JWTs (signed and encrypted), private-key blocks, the known formats of API
 * keys and tokens (`data/known-formats.ts`), connection strings with a password, and bearer
 * headers. Shared by the form content check, the URL credential check and audit redaction, so the
 * three agree on what a secret looks like.
 */

import { CONNECTION_FORMATS, KEY_PREFIXES, KNOWN_FORMATS } from './data/known-formats.js';
import { type SecretScreen, screenFor } from './prefilter.js';

export type SecretKind =
  | 'jwt'
  | 'encrypted-jwt'
  | 'private-key'
  | 'api-key'
  | 'bearer'
  | 'connection-string'
  | 'seed-phrase'
  | 'card-number'
  | 'high-entropy';

export interface SecretMatch {
  readonly kind: SecretKind;
  /** A label for the rule that matched (e.g. `github-token`), never the value. */
  readonly rule: string;
}

interface Rule {
  readonly rule: string;
  readonly kind: SecretKind;
  readonly pattern: RegExp;
}

const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;
// A signed JWT (JWS compact): header and payload are base64url JSON objects (`eyJ`).
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;
// An encrypted JWT (JWE compact): five segments, a JSON header, the encrypted key may be empty (dir).
const JWE = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{8,}/;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/i;

const RULES: readonly Rule[] = [
  { rule: 'private-key-block', kind: 'private-key', pattern: PRIVATE_KEY },
  { rule: 'jwe', kind: 'encrypted-jwt', pattern: JWE },
  { rule: 'jwt', kind: 'jwt', pattern: JWT },
  ...KNOWN_FORMATS.map(([rule, source]) => ({ rule, kind: 'api-key' as const, pattern: new RegExp(source) })),
  ...CONNECTION_FORMATS.map(([rule, source]) => ({ rule, kind: 'connection-string' as const, pattern: new RegExp(source) })),
  { rule: 'bearer-token', kind: 'bearer', pattern: BEARER },
];

// One pass over the value decides whether any rule can match; only then is the rule named.
const ANY = new RegExp(RULES.map((r) => `(?:${r.pattern.source})`).join('|'));

/** Longest value scanned; a longer one is scanned in its first part only (answers are small). */
const MAX_SCAN = 65_536;

/** Finds a secret-shaped substring by its structure alone (no entropy guessing). */
export function findSecret(value: string): SecretMatch | null {
  if (value.length < 16) return null;
  const text = value.length > MAX_SCAN ? value.slice(0, MAX_SCAN) : value;
  if (!ANY.test(text)) return null;
  for (const { rule, kind, pattern } of RULES) if (pattern.test(text)) return { kind, rule };
  return null;
}

let screen: SecretScreen | undefined;

/** The screen of the combined pattern, built on first use (the form checks never ask for it). */
export function secretScreen(): SecretScreen {
  screen ??= screenFor(RULES.map((r) => r.pattern.source));
  return screen;
}

/**
 * False only when `findSecret(value)` is null, told in one pass over a token-like value without
 * running the combined pattern (`prefilter.ts`); true for every other value. For callers whose
 * values are mostly ids and nonces (URL parameters); an answer a user typed gains nothing by it.
 */
export function mayHoldSecret(value: string): boolean {
  if (value.length < 16) return false;
  return secretScreen().mayMatch(value.length > MAX_SCAN ? value.slice(0, MAX_SCAN) : value);
}

/**
 * `mayHoldSecret`, counting `value`'s characters by `classes` into `counts` from `at` on
 * (`mayMatchCounting`) on the way: 0 when it holds no secret and was counted whole (all ASCII), 1 when it may hold one,
 * 2 when it holds none but was not counted (shorter than the shortest secret, or longer than the
 * screen reads).
 */
export function mayHoldSecretCounting(value: string, classes: Uint8Array, counts: Int32Array, at = 0): 0 | 1 | 2 {
  if (value.length < 16) return 2;
  if (value.length > MAX_SCAN) return secretScreen().mayMatch(value.slice(0, MAX_SCAN)) ? 1 : 2;
  return secretScreen().mayMatchCounting(value, classes, counts, at) ? 1 : 0;
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const n = value.length;
  for (const count of counts.values()) {
    const p = count / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * True for a random-looking token: long, one unbroken run of token characters, several
 * character classes and high entropy. Used only where the context already says "credential"
 * (a parameter named `token`, a default of a password field), never on free text.
 */
export function looksRandomToken(value: string): boolean {
  if (value.length < 16 || value.length > 4096) return false;
  if (!/^[A-Za-z0-9._~+/=-]+$/.test(value)) return false;
  let classes = 0;
  if (/[a-z]/.test(value)) classes++;
  if (/[A-Z]/.test(value)) classes++;
  if (/[0-9]/.test(value)) classes++;
  if (/[._~+/=-]/.test(value)) classes++;
  const hex = /^[0-9a-fA-F]+$/.test(value);
  if (!hex && classes < 2) return false;
  return shannonEntropy(value) >= (hex ? 3.0 : 3.5);
}

/** A structural match, or a random-looking token reported as `high-entropy`. */
export function findSecretOrToken(value: string): SecretMatch | null {
  return findSecret(value) ?? (looksRandomToken(value) ? { kind: 'high-entropy', rule: 'random-token' } : null);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A prefix standing alone or quoted, followed by nothing but an ellipsis or punctuation ("starts with sk-").
const PREFIX_MENTION = new RegExp(
  `(?:^|[\\s"'\u2018\u201c(\`])(?:${KEY_PREFIXES.map(escape).join('|')})(?:\\.\\.\\.|\u2026|x+|\\*+)?(?=$|[\\s"'\u2019\u201d).,;:\`])`,
);

/** True when a text names a known key prefix on its own ("paste the key that starts with `sk-`"). */
export function mentionsKeyPrefix(text: string): boolean {
  return text.length < 65_536 && PREFIX_MENTION.test(text);
}
