/**
 * The answer scan: whether a value a user typed is a secret, whatever the field asked for.
 * Structural formats first (`findSecret`), then seed phrases, card numbers, and, only where the
 * caller says the field asks for nothing secret-shaped, long random strings (entropy).
 */

import { findCardNumber } from './card.js';
import { findSecret, shannonEntropy, type SecretMatch } from './patterns.js';
import { isSeedPhrase } from './seed.js';

export interface ScanOptions {
  /** Also report long random strings (a prefixless cloud key, a session id) as `high-entropy`. */
  readonly entropy?: boolean;
}

/**
 * A long unbroken random string: at least 20 characters of a key alphabet, three character classes
 * (or 32+ hex digits) and high entropy. Hashes of commits and UUIDs are excluded: they identify,
 * they do not authenticate.
 */
export function looksLikeRandomSecret(value: string): boolean {
  const v = value.trim();
  if (v.length < 20 || v.length > 4096) return false;
  if (!/^[A-Za-z0-9+/=_.~-]+$/.test(v)) return false;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return false;
  if (/^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(v)) return false;
  if (/^[0-9a-fA-F]+$/.test(v)) return v.length >= 32 && shannonEntropy(v) >= 3.3;
  let classes = 0;
  if (/[a-z]/.test(v)) classes++;
  if (/[A-Z]/.test(v)) classes++;
  if (/[0-9]/.test(v)) classes++;
  if (classes < 3) return false;
  // Words joined by separators ("my-project-name-2024", "reports/2024/Q1-summary.csv") are not
  // random: a random string has no two runs of four or more lower-case letters.
  if ((v.match(/(?<![A-Za-z])[A-Z]?[a-z]{4,}(?![A-Za-z])/g) ?? []).length >= 2) return false;
  return shannonEntropy(v) >= 4.0;
}

/** Scans one answer value. Never returns the value, only what it looks like. */
export function scanValue(value: string, options: ScanOptions = {}): SecretMatch | null {
  if (value.length < 12) return null;
  const structural = findSecret(value);
  if (structural !== null) return structural;
  if (isSeedPhrase(value)) return { kind: 'seed-phrase', rule: 'bip39-mnemonic' };
  if (findCardNumber(value)) return { kind: 'card-number', rule: 'luhn-card-number' };
  if (options.entropy === true && looksLikeRandomSecret(value)) return { kind: 'high-entropy', rule: 'random-secret' };
  return null;
}
