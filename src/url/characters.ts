/**
 * Characters that must never appear in a URL shown to a user: the WHATWG parser silently drops
 * tabs and newlines, IDNA maps zero-width and soft-hyphen characters to nothing, and bidi
 * controls reorder what the user reads. Each is a finding on the *original* input, whatever the
 * parser made of it.
 */

export type HiddenKind = 'control' | 'bidi' | 'invisible';

export interface HiddenCharacter {
  readonly kind: HiddenKind;
  /** `U+200B` style, for messages (never the character itself). */
  readonly codePoint: string;
}

// Bidi formatting characters: embeddings/overrides, isolates, marks (LRM, RLM, ALM).
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
// C0 and C1 controls, DEL.
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;
// Everything a reader cannot see: format characters, default-ignorables (variation selectors,
// Hangul fillers, tags, soft hyphen, CGJ), line/paragraph separators and every space but U+0020.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;
const ANY_HIDDEN =
  /[\u0000-\u001F\u007F-\u00A0\u00AD\u061C\u115F\u1160\u1680\u17B4\u17B5\u180B-\u180F\u2000-\u200F\u2028-\u202F\u205F-\u206F\u3000\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const ANY_HIDDEN_GLOBAL = new RegExp(ANY_HIDDEN.source, 'gu');

function codePointLabel(ch: string): string {
  return 'U+' + ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}

function kindOf(ch: string): HiddenKind | null {
  if (BIDI.test(ch)) return 'bidi';
  if (CONTROL.test(ch)) return 'control';
  if (INVISIBLE.test(ch)) return 'invisible';
  return null;
}

/**
 * The hidden characters of `input`, at most one entry per distinct code point and at most
 * `limit` entries (a hostile string full of them costs one regex scan).
 */
export function findHiddenCharacters(input: string, limit = 8): HiddenCharacter[] {
  if (!ANY_HIDDEN.test(input)) return [];
  const seen = new Set<string>();
  const out: HiddenCharacter[] = [];
  for (const match of input.matchAll(ANY_HIDDEN_GLOBAL)) {
    const ch = match[0];
    if (seen.has(ch)) continue;
    seen.add(ch);
    const kind = kindOf(ch);
    if (kind === null) continue;
    out.push({ kind, codePoint: codePointLabel(ch) });
    if (out.length >= limit) break;
  }
  return out;
}

// `String.prototype.isWellFormed` (ES2024, in every Node this package supports) is false exactly
// when a surrogate is unpaired; the native check costs a fraction of a `/\p{Cs}/u` scan.
type MaybeWellFormed = string & { isWellFormed(): boolean };

/** True when the string holds an unpaired UTF-16 surrogate. */
export function hasLoneSurrogate(input: string): boolean {
  return !(input as MaybeWellFormed).isWellFormed();
}

export function describeCodePoints(chars: readonly HiddenCharacter[]): string {
  return chars.map((c) => c.codePoint).join(', ');
}
