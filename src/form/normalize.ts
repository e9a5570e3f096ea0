/**
 * Text normalisation shared by the lexicon and the classifier. Lexicon terms go through the very
 * same functions as the text they are matched against, so a fold that is "wrong" for a language
 * (e.g. Cyrillic й → и) is harmless: both sides fold alike.
 *
 * Before matching, evasion is undone (`deobfuscate`): escape sequences are decoded (`\u0070`,
 * `\x70`, `&#112;`, `%70`), invisible characters removed (zero-width spaces and joiners, soft
 * hyphens, word joiners, variation selectors), a word that mixes Latin with look-alike letters of
 * another script is replaced by its UTS #39 skeleton (`unhomoglyph`), and in labels leetspeak digits
 * and symbols between letters are read as letters (`p4ssw0rd`, `pa$$word`, `@pi_k3y`). Letters
 * spelled out one by one (`p_a_s_s_w_o_r_d`, `P a s s w o r d`) are joined back into a word.
 */

import unhomoglyph from 'unhomoglyph';

/**
 * Longest text (in UTF-16 units, invisible characters not counted) the classifier reads from one
 * name, title, description or message. The audit refuses a form with a longer text: it cannot be
 * read whole, and what is past the bound could hide anything.
 */
export const MAX_SCANNED_TEXT = 16_384;

const COMBINING_DIACRITICS = /[\u0300-\u036f]/g;
// Text made only of printable ASCII takes the fast paths below (no Unicode folding to do).
const ASCII = /^[\x20-\x7e\t\n\r]*$/;
// Scripts written without spaces between words: matched by substring on compacted text.
const CJK =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const LATIN_OR_DIGIT = /[\p{Script=Latin}\p{N}]/u;

// Format characters (zero-width space/joiners, bidi marks, word joiner, BOM), soft hyphen,
// combining grapheme joiner, Hangul fillers, Mongolian vowel separator, variation selectors.
const INVISIBLE = /[\p{Cf}\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u3164\uffa0\ufe00-\ufe0f]|\udb40[\udd00-\uddef]/gu;
const ESCAPE =
  /\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|&#[xX]([0-9a-fA-F]{1,6});|&#(\d{1,7});|%([0-9a-fA-F]{2})/g;
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&apos;': "'",
  '&nbsp;': ' ',
};
const MIXED_WORD = /[\p{L}\p{M}\p{N}]+/gu;
const LATIN = /\p{Script=Latin}/u;
const CONFUSABLE_SCRIPT = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}\p{Script=Coptic}]/u;
const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '!': 'i',
  '|': 'l',
};
// A run of letters with leet characters inside it (`p4ssw0rd`, `pa$$word`), or leading `@`/`$` (`@pi`).
const LEET_WORD = /(?<![\p{L}\p{N}@$!|])(?:[@$][\p{L}][\p{L}0-9@$!|]*|[\p{L}][\p{L}0-9@$!|]*[0-9@$!|][\p{L}][\p{L}0-9@$!|]*)/gu;

/** The text without the characters that render as nothing (see `INVISIBLE`). */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** True when the visible text is longer than the classifier reads (the audit then refuses the form). */
export function exceedsScanBound(text: string): boolean {
  return text.length > MAX_SCANNED_TEXT && stripInvisible(text).length > MAX_SCANNED_TEXT;
}

function codePoint(hex: string | undefined, dec: string | undefined): string | null {
  const n = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(dec ?? '', 10);
  if (!Number.isFinite(n) || n < 0x20 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return null;
  return String.fromCodePoint(n);
}

/** Decodes `\uXXXX`, `\u{…}`, `\xXX`, `&#…;`, `&#x…;`, a few named entities and `%XX` (letters only). */
export function decodeEscapes(text: string): string {
  if (!/[\\&%]/.test(text)) return text;
  let out = text.replace(ESCAPE, (whole, braced, u4, x2, hexEntity, decEntity, pct) => {
    if (pct !== undefined) {
      const ch = String.fromCharCode(Number.parseInt(pct as string, 16));
      return /[A-Za-z]/.test(ch) ? ch : whole;
    }
    return codePoint((braced ?? u4 ?? x2 ?? hexEntity) as string | undefined, decEntity as string | undefined) ?? whole;
  });
  if (out.includes('&')) out = out.replace(/&(?:amp|lt|gt|quot|apos|nbsp);/g, (e) => NAMED_ENTITIES[e] ?? e);
  return out;
}

/** A word mixing Latin with look-alike letters of another script, replaced by its skeleton (UTS #39). */
function skeletonMixedWords(text: string): string {
  if (!CONFUSABLE_SCRIPT.test(text) || !LATIN.test(text)) return text;
  return text.replace(MIXED_WORD, (word) => (LATIN.test(word) && CONFUSABLE_SCRIPT.test(word) ? unhomoglyph(word) : word));
}

function unleet(text: string): string {
  if (!/[0-9@$!|]/.test(text)) return text;
  return text.replace(LEET_WORD, (word) => word.replace(/[0-9@$!|]/g, (ch) => LEET[ch] ?? ch));
}

/**
 * Undoes the evasions above. `label` (property names and titles) also reads leetspeak; prose is
 * left alone there, where `@` and digits between letters are e-mail addresses and versions.
 */
export function deobfuscate(text: string, label: boolean): string {
  // Invisible padding is removed before the text is cut to the bound, so it cannot push a word past it.
  const visible = text.length > MAX_SCANNED_TEXT ? stripInvisible(text) : text;
  const clipped = visible.length > MAX_SCANNED_TEXT ? visible.slice(0, MAX_SCANNED_TEXT) : visible;
  if (ASCII.test(clipped)) {
    // Printable ASCII has no invisible characters, no confusables and nothing for NFKC to fold.
    const decoded = decodeEscapes(clipped);
    if (decoded === clipped || ASCII.test(decoded)) return label ? unleet(decoded) : decoded;
    return deobfuscate(decoded, label);
  }
  let out = decodeEscapes(clipped).replace(INVISIBLE, '');
  out = skeletonMixedWords(out.normalize('NFKC'));
  return label ? unleet(out) : out;
}

/**
 * NFKC, lower case, `ß` → `ss`, and the combining diacritics of the Latin/Greek/Cyrillic block
 * removed (`contraseña` → `contrasena`, `Schlüssel` → `schlussel`). Japanese (han)dakuten are
 * outside that block, so `パスワード` keeps its marks.
 */
export function normalizeText(text: string): string {
  const clipped = text.length > MAX_SCANNED_TEXT ? text.slice(0, MAX_SCANNED_TEXT) : text;
  if (ASCII.test(clipped)) return clipped.toLowerCase();
  return (
    clipped
      .normalize('NFKC')
      .toLowerCase()
      .replace(/ß/g, 'ss')
      .replace(/ł/g, 'l')
      // Hebrew abbreviations (דוא"ל, צה״ל) keep their gershayim inside the word.
      .replace(/(\p{Script=Hebrew})["\u05f4'\u05f3](?=\p{Script=Hebrew})/gu, '$1')
      .normalize('NFD')
      .replace(COMBINING_DIACRITICS, '')
      .normalize('NFC')
  );
}

/** True when the text holds a script written without spaces (Han, Kana, Hangul, Thai...), matched by substring. */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/**
 * Splits an identifier into camelCase / PascalCase / ACRONYMCase parts before it is lower-cased:
 * `apiKey` → `api Key`, `APIKey` → `API Key`, `password2` → `password 2`.
 */
function splitCase(text: string): string {
  if (ASCII.test(text)) {
    if (!/[A-Z0-9]/.test(text)) return text;
    return text
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])([0-9])/g, '$1 $2')
      .replace(/([0-9])([A-Za-z])/g, '$1 $2');
  }
  return text
    .replace(/(\p{Ll}|\p{Nd})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{Nd})/gu, '$1 $2')
    .replace(/(\p{Nd})(\p{L})/gu, '$1 $2');
}

/** Splits normalised text into words: letters, digits and marks; a change between Latin and another script also splits. */
function words(normalized: string): string[] {
  if (ASCII.test(normalized)) return joinSpelledOut(normalized.split(/[^a-z0-9]+/).filter((w) => w !== ''));
  const out: string[] = [];
  let current = '';
  let currentLatin: boolean | null = null;
  for (const ch of normalized) {
    if (!WORD_CHAR.test(ch)) {
      if (current !== '') out.push(current);
      current = '';
      currentLatin = null;
      continue;
    }
    const latin: boolean | null = LATIN_OR_DIGIT.test(ch) ? true : /\p{M}/u.test(ch) ? currentLatin : false;
    if (currentLatin !== null && latin !== null && latin !== currentLatin && current !== '') {
      out.push(current);
      current = '';
    }
    current += ch;
    if (latin !== null) currentLatin = latin;
  }
  if (current !== '') out.push(current);
  return joinSpelledOut(out);
}

/**
 * Three or more one-letter words in a row are a word spelled out (`p a s s w o r d` → `password`),
 * and so are three or more pieces of one or two letters (`PaSsWoRd` split by its case changes).
 */
function joinSpelledOut(ws: string[]): string[] {
  let short = 0;
  for (const w of ws) if (w.length <= 2 && /^\p{L}+$/u.test(w)) short++;
  if (short < 3) return ws;
  const out: string[] = [];
  let run: string[] = [];
  const flush = (): void => {
    if (run.length >= 3 && (run.some((w) => w.length === 1) ? run.every((w) => w.length === 1) : run.length >= 4)) out.push(run.join(''));
    else out.push(...run);
    run = [];
  };
  for (const w of ws) {
    if (w.length <= 2 && /^\p{L}+$/u.test(w)) run.push(w);
    else {
      flush();
      out.push(w);
    }
  }
  flush();
  return out;
}

/** The words of a property name: `mot_de_passe`, `apiKey`, `API_KEY`, `pass-word2`, `p4ssw0rd` all split and read. */
export function identifierWords(name: string): string[] {
  return words(normalizeText(splitCase(deobfuscate(name, true))));
}

/**
 * The phrases of a prose text (title, description, message), each a list of words. Phrases end
 * at sentence punctuation and brackets, so "password (min 8 characters)" keeps `password` and
 * `min` apart. Apostrophes and hyphens split words but not phrases (`d'accès`, `API-Schlüssel`).
 */
export function textPhrases(text: string, label = false): string[][] {
  const normalized = normalizeText(splitCase(deobfuscate(text, label)));
  const phrases: string[][] = [];
  for (const part of normalized.split(/[.,;:!?()[\]{}<>"«»“”„|/\\\n\r\t。、，；：！？（）「」『』【】《》・]+/u)) {
    const ws = words(part);
    if (ws.length > 0) phrases.push(ws);
  }
  return phrases;
}

/**
 * The sentences of a prose text, each a list of phrases: negation reaches to the end of its
 * sentence ("never paste API keys, tokens or passwords here"), not only its phrase.
 */
export function textSentences(text: string, label = false): string[][][] {
  const normalized = normalizeText(splitCase(deobfuscate(text, label)));
  const sentences: string[][][] = [];
  const ascii = ASCII.test(normalized);
  for (const sentence of ascii
    ? normalized.split(/[.!?;\n\r]+(?:\s|$)|[\n\r]/)
    : normalized.split(/[.!?;\n\r。！？；]+(?:\s|$)|[\n\r。！？；]/u)) {
    const phrases: string[][] = [];
    // A dot inside a word (`id_rsa.pub`, `Node.js`, `v1.2`) does not end a phrase.
    for (const part of ascii
      ? sentence.split(/(?:[,:()[\]{}<>"|/\\\t]|\.(?!\w))+/)
      : sentence.split(/(?:[,:()[\]{}<>"«»“”„|/\\\t、，：（）「」『』【】《》・]|\.(?![\p{L}\p{N}]))+/u)) {
      const ws = words(part);
      if (ws.length > 0) phrases.push(ws);
    }
    if (phrases.length > 0) sentences.push(phrases);
  }
  return sentences;
}

/** Normalised text with everything but letters, digits and marks removed: the haystack for CJK terms. */
export function compactText(text: string, label = false): string {
  let out = '';
  for (const ch of normalizeText(deobfuscate(text, label))) if (WORD_CHAR.test(ch)) out += ch;
  return out;
}

/** A term of the lexicon as a word sequence (for alphabetic scripts). */
export function termWords(term: string): string[] {
  return words(normalizeText(splitCase(term)));
}
