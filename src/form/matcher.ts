/**
 * Finds lexicon terms in a property name or a prose text, and decides for each match whether it
 * names the thing itself (a hit) or only talks about it (neutralised: `password_min_length`,
 * `max_tokens`, `longueur du mot de passe`), or is negated in prose ("we never ask for your password").
 */

import {
  ADDRESS_WORDS,
  CJK_NEGATORS,
  CJK_NEUTRAL_AFTER,
  CJK_NEUTRAL_AFTER_CREDENTIAL,
  CJK_NEUTRAL_BEFORE,
  CJK_POSSESSIVES,
  CONTRAST,
  FUNCTION_WORDS,
  GENERIC_WORDS,
  LEXICON,
  NEGATORS,
  NEUTRAL_AFTER,
  NEUTRAL_AFTER_CREDENTIAL,
  NEUTRAL_BEFORE,
  NEUTRAL_RELATIVE,
  ORDINARY_NOUNS,
  PAYMENT_WORDS,
  type LexiconEntry,
} from './lexicon.js';
import { compactText, hasCjk, identifierWords, normalizeText, termWords, textPhrases } from './normalize.js';

/** Where a signal came from; reasons are written `<source>:<term>`. */
export type TextSource = 'name' | 'title' | 'description' | 'message';

/** A lexicon term found in a label or text that names the sensitive thing itself. */
export interface TermHit {
  readonly source: TextSource;
  readonly entry: LexiconEntry;
}

/** What one label or text says about a field. */
export interface TextReading {
  /** Sensitive terms that name the thing itself (not neutralised, not negated, `bare` rule satisfied). */
  readonly hits: readonly TermHit[];
  /** True when the text names something: a lexicon term (even neutralised or benign) or an ordinary noun. */
  readonly identified: boolean;
  /** True when every word is generic (`value`, `input`, `code`, `key`...), or there are no words. */
  readonly generic: boolean;
  /** Address words (for the `pin code` decision). */
  readonly mentionsAddress: boolean;
  /** Card/payment words (for `security code` and `expiry`). */
  readonly mentionsPayment: boolean;
}

interface CompiledTerm {
  readonly words: readonly string[];
  readonly entry: LexiconEntry;
}

interface CompiledCjkTerm {
  readonly text: string;
  readonly entry: LexiconEntry;
}

interface Compiled {
  readonly byFirstWord: ReadonlyMap<string, readonly CompiledTerm[]>;
  readonly suffixTerms: readonly CompiledTerm[];
  readonly cjkTerms: readonly CompiledCjkTerm[];
  readonly neutralAfter: ReadonlySet<string>;
  readonly neutralAfterCredential: ReadonlySet<string>;
  readonly neutralBefore: ReadonlySet<string>;
  readonly neutralRelative: ReadonlySet<string>;
  readonly functionWords: ReadonlySet<string>;
  readonly negators: ReadonlySet<string>;
  readonly contrast: ReadonlySet<string>;
  readonly ordinaryWords: ReadonlySet<string>;
  readonly ordinaryCjk: readonly string[];
  readonly genericWords: ReadonlySet<string>;
  readonly addressWords: ReadonlySet<string>;
  readonly addressCjk: readonly string[];
  readonly paymentWords: ReadonlySet<string>;
  readonly paymentCjk: readonly string[];
  readonly cjkPossessives: readonly string[];
}

function wordSet(list: readonly string[]): Set<string> {
  return new Set(list.filter((w) => !hasCjk(w)).map((w) => normalizeText(w)));
}

function cjkList(list: readonly string[]): string[] {
  return list.filter((w) => hasCjk(w)).map((w) => compactText(w));
}

function compile(): Compiled {
  const byFirstWord = new Map<string, CompiledTerm[]>();
  const suffixTerms: CompiledTerm[] = [];
  const cjkTerms: CompiledCjkTerm[] = [];
  for (const entry of LEXICON) {
    if (hasCjk(entry.term)) {
      cjkTerms.push({ text: compactText(entry.term), entry });
      continue;
    }
    const words = termWords(entry.term);
    const first = words[0];
    if (first === undefined) continue;
    const compiled = { words, entry };
    const list = byFirstWord.get(first) ?? [];
    list.push(compiled);
    byFirstWord.set(first, list);
    if (entry.suffix) suffixTerms.push(compiled);
  }
  for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);
  cjkTerms.sort((a, b) => b.text.length - a.text.length);
  return {
    byFirstWord,
    suffixTerms,
    cjkTerms,
    neutralAfter: wordSet(NEUTRAL_AFTER),
    neutralAfterCredential: wordSet(NEUTRAL_AFTER_CREDENTIAL),
    neutralBefore: wordSet(NEUTRAL_BEFORE),
    neutralRelative: wordSet(NEUTRAL_RELATIVE),
    functionWords: wordSet(FUNCTION_WORDS),
    negators: wordSet(NEGATORS),
    contrast: wordSet(CONTRAST),
    ordinaryWords: wordSet(ORDINARY_NOUNS),
    ordinaryCjk: cjkList(ORDINARY_NOUNS),
    genericWords: wordSet(GENERIC_WORDS),
    addressWords: wordSet(ADDRESS_WORDS),
    addressCjk: cjkList(ADDRESS_WORDS),
    paymentWords: wordSet(PAYMENT_WORDS),
    paymentCjk: cjkList(PAYMENT_WORDS),
    cjkPossessives: CJK_POSSESSIVES.map((w) => compactText(w)),
  };
}

let compiledCache: Compiled | undefined;
function compiled(): Compiled {
  compiledCache ??= compile();
  return compiledCache;
}

interface WordMatch {
  readonly start: number;
  readonly end: number;
  readonly entry: LexiconEntry;
}

function matchesAt(words: readonly string[], at: number, term: readonly string[]): boolean {
  if (at + term.length > words.length) return false;
  for (let k = 0; k < term.length; k++) if (words[at + k] !== term[k]) return false;
  return true;
}

/** Longest-first, left-to-right scan; a match (benign ones included) consumes its words. */
function scanWords(words: readonly string[], inName: boolean): WordMatch[] {
  const c = compiled();
  const matches: WordMatch[] = [];
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    let found: CompiledTerm | undefined;
    for (const candidate of c.byFirstWord.get(word) ?? []) {
      if (candidate.entry.scope === 'name' && !inName) continue;
      if (matchesAt(words, i, candidate.words)) {
        found = candidate;
        break;
      }
    }
    if (found === undefined) {
      for (const candidate of c.suffixTerms) {
        const tail = candidate.words[0]!;
        if (word.length > tail.length && word.endsWith(tail)) {
          found = candidate;
          break;
        }
      }
      if (found !== undefined) {
        matches.push({ start: i, end: i + 1, entry: found.entry });
        i += 1;
        continue;
      }
      i += 1;
      continue;
    }
    matches.push({ start: i, end: i + found.words.length, entry: found.entry });
    i += found.words.length;
  }
  return matches;
}

/** The first word before `index` that is not a function word, looking at most `limit` words back. */
function previousContentWords(words: readonly string[], index: number, limit: number): string[] {
  const c = compiled();
  const out: string[] = [];
  for (let k = index - 1; k >= 0 && out.length < limit; k--) {
    const w = words[k]!;
    if (c.functionWords.has(w)) continue;
    out.push(w);
  }
  return out;
}

function isNeutralised(words: readonly string[], m: WordMatch): boolean {
  const c = compiled();
  const next = words[m.end];
  if (next !== undefined) {
    if (c.neutralAfter.has(next)) return true;
    if (m.entry.class === 'credential' && c.neutralAfterCredential.has(next)) return true;
  }
  const before = previousContentWords(words, m.start, 3);
  if (before[0] !== undefined && c.neutralBefore.has(before[0])) return true;
  return before.some((w) => c.neutralRelative.has(w));
}

function isNegated(words: readonly string[], m: WordMatch): boolean {
  const c = compiled();
  for (const w of previousContentWords(words, m.start, 3)) {
    if (c.contrast.has(w)) return false;
    if (c.negators.has(w)) return true;
  }
  return false;
}

function contentWords(words: readonly string[]): string[] {
  const c = compiled();
  return words.filter((w) => !c.functionWords.has(w));
}

/** A `bare` term must be the whole phrase, function words aside: "Name", "Your name", `user`. */
function isBare(words: readonly string[], m: WordMatch): boolean {
  return contentWords(words).length === contentWords(words.slice(m.start, m.end)).length;
}

function stripPossessive(compact: string): string {
  for (const p of compiled().cjkPossessives) if (compact.startsWith(p) && compact.length > p.length) return compact.slice(p.length);
  return compact;
}

interface CjkMatch {
  readonly start: number;
  readonly end: number;
  readonly entry: LexiconEntry;
}

function scanCjk(compact: string): CjkMatch[] {
  const taken: CjkMatch[] = [];
  for (const term of compiled().cjkTerms) {
    let from = 0;
    for (;;) {
      const at = compact.indexOf(term.text, from);
      if (at < 0) break;
      const end = at + term.text.length;
      if (!taken.some((t) => at < t.end && end > t.start)) taken.push({ start: at, end, entry: term.entry });
      from = at + 1;
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}

function cjkNeutralised(compact: string, m: CjkMatch): boolean {
  const after = compact.slice(m.end).replace(/^(?:の|的|의)/u, '');
  if (CJK_NEUTRAL_AFTER.some((w) => after.startsWith(w))) return true;
  if (m.entry.class === 'credential' && CJK_NEUTRAL_AFTER_CREDENTIAL.some((w) => after.startsWith(w))) return true;
  const before = compact.slice(0, m.start);
  return CJK_NEUTRAL_BEFORE.some((w) => before.endsWith(w));
}

function cjkNegated(compact: string, m: CjkMatch): boolean {
  const window = compact.slice(Math.max(0, m.start - 8), m.start);
  return CJK_NEGATORS.some((w) => window.includes(w));
}

function isGenericWord(word: string): boolean {
  const c = compiled();
  if (c.genericWords.has(word) || c.functionWords.has(word) || /^\p{N}+$/u.test(word)) return true;
  return hasCjk(word) && c.genericWords.has(stripPossessive(word));
}

/**
 * Reads one label (a property name or a title) or one prose text (a description or the message).
 * Property names are split as identifiers; everything else as prose, phrase by phrase.
 */
export function readText(text: string, source: TextSource): TextReading {
  const c = compiled();
  const inName = source === 'name';
  // Titles are short prose too ("Nickname (not your password)"), so negation applies to them.
  const prose = source !== 'name';
  const phrases = inName ? [identifierWords(text)] : textPhrases(text);
  const hits: TermHit[] = [];
  let identified = false;
  let generic = true;
  let mentionsAddress = false;
  let mentionsPayment = false;

  for (const words of phrases) {
    for (const w of words) {
      if (c.ordinaryWords.has(w)) identified = true;
      if (!isGenericWord(w)) generic = false;
      if (c.addressWords.has(w)) mentionsAddress = true;
      if (c.paymentWords.has(w)) mentionsPayment = true;
    }
    for (const m of scanWords(words, inName)) {
      identified = true;
      if (m.entry.class === 'ordinary') continue;
      if (isNeutralised(words, m)) continue;
      if (prose && isNegated(words, m)) continue;
      if (m.entry.rule === 'bare' && !isBare(words, m)) continue;
      if (m.entry.rule === 'head' && contentWords(words.slice(m.end)).length > 0) continue;
      hits.push({ source, entry: m.entry });
    }
  }

  if (hasCjk(text)) {
    const compact = compactText(text);
    if (c.ordinaryCjk.some((w) => compact.includes(w))) identified = true;
    if (c.addressCjk.some((w) => compact.includes(w))) mentionsAddress = true;
    if (c.paymentCjk.some((w) => compact.includes(w))) mentionsPayment = true;
    for (const m of scanCjk(compact)) {
      identified = true;
      if (m.entry.class === 'ordinary') continue;
      if (cjkNeutralised(compact, m)) continue;
      if (prose && cjkNegated(compact, m)) continue;
      if (m.entry.rule === 'bare' && stripPossessive(compact) !== compact.slice(m.start, m.end)) continue;
      hits.push({ source, entry: m.entry });
    }
  }
  return { hits, identified, generic, mentionsAddress, mentionsPayment };
}
