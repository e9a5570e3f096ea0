/**
 * Wallet seed phrases (BIP-39): 12, 15, 18, 21 or 24 words, every one from the same word list of
 * `@scure/bip39` (English, Czech, French, Italian, Japanese, Korean, Portuguese, Spanish and both
 * Chinese lists). The checksum is not required: a phrase typed with one wrong word is still a
 * wallet's key material to its owner.
 */

import { wordlist as czech } from '@scure/bip39/wordlists/czech.js';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as french } from '@scure/bip39/wordlists/french.js';
import { wordlist as italian } from '@scure/bip39/wordlists/italian.js';
import { wordlist as japanese } from '@scure/bip39/wordlists/japanese.js';
import { wordlist as korean } from '@scure/bip39/wordlists/korean.js';
import { wordlist as portuguese } from '@scure/bip39/wordlists/portuguese.js';
import { wordlist as simplifiedChinese } from '@scure/bip39/wordlists/simplified-chinese.js';
import { wordlist as spanish } from '@scure/bip39/wordlists/spanish.js';
import { wordlist as traditionalChinese } from '@scure/bip39/wordlists/traditional-chinese.js';

const LISTS: readonly (readonly string[])[] = [
  english,
  spanish,
  french,
  italian,
  portuguese,
  czech,
  japanese,
  korean,
  simplifiedChinese,
  traditionalChinese,
];
const PHRASE_LENGTHS: ReadonlySet<number> = new Set([12, 15, 18, 21, 24]);

let sets: readonly ReadonlySet<string>[] | undefined;
function wordSets(): readonly ReadonlySet<string>[] {
  sets ??= LISTS.map((list) => new Set(list.map((w) => w.normalize('NFKD'))));
  return sets;
}

/** The words of a candidate phrase: split on spaces (ideographic too), commas, newlines; numbering ("1. abandon") dropped. */
function phraseWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .split(/[\s,;\u3000]+/u)
    .map((w) => w.replace(/^\d{1,2}[.):-]?/, ''))
    .filter((w) => w !== '');
}

/** True when `text` is a BIP-39 mnemonic of a valid length whose words all come from one list. */
export function isSeedPhrase(text: string): boolean {
  if (text.length < 24 || text.length > 600) return false;
  const words = phraseWords(text);
  if (!PHRASE_LENGTHS.has(words.length)) return false;
  return wordSets().some((set) => words.every((w) => set.has(w)));
}

/** True when every option is a word of one BIP-39 list (a choice field that picks seed words). */
export function allSeedWords(options: readonly string[]): boolean {
  if (options.length < 8) return false;
  const words = options.map((o) => o.normalize('NFKD').toLowerCase().trim());
  return wordSets().some((set) => words.every((w) => set.has(w)));
}
