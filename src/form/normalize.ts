/**
 * Text normalisation shared by the lexicon and the classifier. Lexicon terms go through the very
 * same functions as the text they are matched against, so a fold that is "wrong" for a language
 * (e.g. Cyrillic й → и) is harmless: both sides fold alike.
 */

/**
 * Longest text (in UTF-16 units, invisible characters not counted) the classifier reads from one
 * name, title, description or message. The audit refuses a form with a longer text: it cannot be
 * read whole, and what is past the bound could hide anything.
 */
export const MAX_SCANNED_TEXT = 16_384;

/** Characters that render as nothing (zero-width spaces and joiners, soft hyphens, variation selectors, fillers). */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** The text without the characters that render as nothing: they are stripped before anything is read. */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** True when the visible text is longer than the classifier reads. */
export function exceedsScanBound(text: string): boolean {
  return text.length > MAX_SCANNED_TEXT && stripInvisible(text).length > MAX_SCANNED_TEXT;
}

function clip(text: string): string {
  const visible = stripInvisible(text);
  return visible.length > MAX_SCANNED_TEXT ? visible.slice(0, MAX_SCANNED_TEXT) : visible;
}

const COMBINING_DIACRITICS = /[\u0300-\u036f]/g;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const LATIN_OR_DIGIT = /[\p{Script=Latin}\p{N}]/u;

/**
 * NFKC, lower case, `ß` → `ss`, and the combining diacritics of the Latin/Greek/Cyrillic block
 * removed (`contraseña` → `contrasena`, `Schlüssel` → `schlussel`). Japanese (han)dakuten are
 * outside that block, so `パスワード` keeps its marks.
 */
export function normalizeText(text: string): string {
  return clip(text)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(COMBINING_DIACRITICS, '')
    .normalize('NFC');
}

/** True when the text holds Han, Kana or Hangul, which is matched by substring, not by word. */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/**
 * Splits an identifier into camelCase / PascalCase / ACRONYMCase parts before it is lower-cased:
 * `apiKey` → `api Key`, `APIKey` → `API Key`, `password2` → `password 2`.
 */
function splitCase(text: string): string {
  return text
    .replace(/(\p{Ll}|\p{Nd})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{Nd})/gu, '$1 $2')
    .replace(/(\p{Nd})(\p{L})/gu, '$1 $2');
}

/** Splits normalised text into words: letters, digits and marks; a change between Latin and another script also splits. */
function words(normalized: string): string[] {
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
  return out;
}

/** The words of a property name: `mot_de_passe`, `apiKey`, `API_KEY`, `pass-word2` all split. */
export function identifierWords(name: string): string[] {
  return words(normalizeText(splitCase(clip(name))));
}

/**
 * The phrases of a prose text (title, description, message), each a list of words. Phrases end
 * at sentence punctuation and brackets, so "password (min 8 characters)" keeps `password` and
 * `min` apart. Apostrophes and hyphens split words but not phrases (`d'accès`, `API-Schlüssel`).
 */
export function textPhrases(text: string): string[][] {
  const normalized = normalizeText(splitCase(clip(text)));
  const phrases: string[][] = [];
  for (const part of normalized.split(/[.,;:!?()[\]{}<>"«»“”„|/\\\n\r\t。、，；：！？（）「」『』【】《》・]+/u)) {
    const ws = words(part);
    if (ws.length > 0) phrases.push(ws);
  }
  return phrases;
}

/** Normalised text with everything but letters, digits and marks removed: the haystack for CJK terms. */
export function compactText(text: string): string {
  let out = '';
  for (const ch of normalizeText(text)) if (WORD_CHAR.test(ch)) out += ch;
  return out;
}

/** A term of the lexicon as a word sequence (for alphabetic scripts). */
export function termWords(term: string): string[] {
  return words(normalizeText(splitCase(term)));
}
