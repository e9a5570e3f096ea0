/**
 * Finds lexicon terms in a property name or a prose text, and decides for each match whether it
 * names the thing itself (a hit) or only talks about it, or is negated in prose.
 *
 * How a label (a property name or a title) is read: the head of the label decides. In a language
 * that puts the head last (English, German, Turkish, Japanese...) a term followed by another noun is
 * a modifier of that noun (`password_strength_rule`, `token_color`, `api_key_rotation_days`); only
 * the words of `PRESERVING_AFTER` may follow a term that stays the head (`password_confirmation`,
 * `pin_number`). In a language that puts the head first, an about-word before the term makes it a
 * complement (`longueur du mot de passe`, `длина пароля`). A term after a preposition whose head is
 * another noun is a complement too ("Label shown next to the CVV input"). A service name before
 * `key` makes a credential (`stripe_key`). Prose (descriptions, the message) is read phrase by
 * phrase with the about-word lists, and a negation reaches to the end of its sentence ("never paste
 * API keys, tokens or passwords here").
 */

import {
  ADDRESS_WORDS,
  CJK_NEGATORS,
  CJK_NEGATORS_AFTER,
  COMPOUNDS,
  DELIVERY_WORDS,
  HEAD_NOUNS,
  HEAD_INITIAL,
  LABEL_BOUNDARY,
  NEGATORS_AFTER,
  PRESERVING_AFTER,
  PRESERVING_AFTER_PERSONAL,
  PRESERVING_HEAD,
  PROVIDERS,
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
import { compactText, hasCjk, identifierWords, normalizeText, termWords, textSentences } from './normalize.js';

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
  /** One test for "ends with some suffix term" before the loop that finds which. */
  readonly suffixTail: RegExp;
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
  readonly negatorsAfter: ReadonlySet<string>;
  readonly preservingAfter: ReadonlySet<string>;
  readonly preservingAfterPersonal: ReadonlySet<string>;
  readonly preservingHead: ReadonlySet<string>;
  readonly boundary: ReadonlySet<string>;
  readonly providers: ReadonlySet<string>;
  /** Words that can be the head of a label after a secret (see `isModifierBefore`). */
  readonly knownHeads: ReadonlySet<string>;
  readonly deliveryWords: ReadonlySet<string>;
  readonly compounds: readonly CompiledCompound[];
  /** The bridge words of each compound's entry (see `isModifierBefore`). */
  readonly compoundBridges: ReadonlyMap<LexiconEntry, ReadonlySet<string>>;
  /** The modifiers of the compounds that take bracketed qualifiers: a title phrase made only of them qualifies the one before. */
  readonly qualifierWords: ReadonlySet<string>;
}

interface CompiledCompound {
  readonly entry: LexiconEntry;
  readonly modifiers: ReadonlySet<string>;
  readonly heads: ReadonlySet<string>;
  readonly stems: readonly string[];
  /** Words that may stand between the modifier and the head, or after the pair (`ssh`, `deploy`). */
  readonly bridges: ReadonlySet<string>;
  /** Its modifiers in brackets after a title qualify the phrase before (see `joinQualifiers`). */
  readonly qualifies: boolean;
  /** One test for "ends with some head" before the one-word compound check. */
  readonly headTail: RegExp;
  /** One anchored test for "starts with some one-word stem", cheaper than `headTail`, made first. */
  readonly stemStart: RegExp;
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
  const seen = new Set<string>();
  for (const entry of LEXICON) {
    if (hasCjk(entry.term)) {
      cjkTerms.push({ text: compactText(entry.term), entry });
      continue;
    }
    const words = termWords(entry.term);
    const first = words[0];
    if (first === undefined) continue;
    const key = `${entry.scope}\u0000${words.join(' ')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const compiled = { words, entry };
    const list = byFirstWord.get(first) ?? [];
    list.push(compiled);
    byFirstWord.set(first, list);
    if (entry.suffix) suffixTerms.push(compiled);
  }
  for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);
  cjkTerms.sort((a, b) => b.text.length - a.text.length);
  const compounds = compileCompounds();
  return {
    byFirstWord,
    suffixTerms,
    suffixTail: new RegExp(`(?:${suffixTerms.map((t) => t.words[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') || '(?!)'})$`, 'u'),
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
    negatorsAfter: wordSet(NEGATORS_AFTER),
    preservingAfter: wordSet(PRESERVING_AFTER),
    preservingAfterPersonal: wordSet(PRESERVING_AFTER_PERSONAL),
    preservingHead: wordSet(PRESERVING_HEAD),
    boundary: wordSet(LABEL_BOUNDARY),
    providers: wordSet(PROVIDERS),
    knownHeads: new Set([
      ...wordSet(HEAD_NOUNS),
      ...wordSet(ORDINARY_NOUNS),
      ...wordSet(NEUTRAL_AFTER),
      ...wordSet(NEUTRAL_AFTER_CREDENTIAL),
      // Words of head-final languages' terms only: an Italian `utente` after `password` is not its head.
      ...LEXICON.filter((e) => !hasCjk(e.term) && !HEAD_INITIAL.has(e.lang)).flatMap((e) => termWords(e.term)),
    ]),
    deliveryWords: wordSet(DELIVERY_WORDS),
    compounds,
    compoundBridges: new Map(compounds.map((k) => [k.entry, k.bridges])),
    qualifierWords: new Set(compounds.flatMap((k) => (k.qualifies ? [...k.modifiers] : []))),
  };
}

function compileCompounds(): CompiledCompound[] {
  return COMPOUNDS.map((k) => ({
    entry: {
      term: k.term,
      lang: 'en',
      class: k.class,
      concept: k.concept,
      rule: 'strong' as const,
      scope: 'any' as const,
      suffix: false,
    },
    modifiers: wordSet(k.modifiers),
    heads: wordSet(k.heads),
    stems: (k.oneWordStems ?? []).map((w) => normalizeText(w)),
    bridges: wordSet(k.bridges ?? []),
    qualifies: k.bracketQualifiers === true,
    headTail: new RegExp(`(?:${k.heads.map((h) => normalizeText(h).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`, 'u'),
    stemStart: new RegExp(
      `^(?:${(k.oneWordStems ?? []).map((w) => normalizeText(w).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') || '(?!)'})`,
      'u',
    ),
  }));
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
function scanWords(words: readonly string[], inName: boolean, inLabel = inName): WordMatch[] {
  const c = compiled();
  const matches: WordMatch[] = [];
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    let found: CompiledTerm | undefined;
    for (const candidate of c.byFirstWord.get(word) ?? []) {
      if (candidate.entry.scope === 'name' && !inName) continue;
      if (candidate.entry.scope === 'label' && !inLabel) continue;
      if (matchesAt(words, i, candidate.words)) {
        found = candidate;
        break;
      }
    }
    if (found === undefined) {
      if (c.suffixTail.test(word)) {
        for (const candidate of c.suffixTerms) {
          const tail = candidate.words[0]!;
          if (word.length > tail.length && word.endsWith(tail)) {
            found = candidate;
            break;
          }
        }
      }
      if (found !== undefined) matches.push({ start: i, end: i + 1, entry: found.entry });
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
  const before = compact.slice(Math.max(0, m.start - 8), m.start);
  if (CJK_NEGATORS.some((w) => before.includes(w))) return true;
  const after = compact.slice(m.end, m.end + 16);
  return CJK_NEGATORS_AFTER.some((w) => after.includes(w));
}

function isGenericWord(word: string): boolean {
  const c = compiled();
  if (c.genericWords.has(word) || c.functionWords.has(word)) return true;
  const first = word.charCodeAt(0);
  if (first < 0x80) return first >= 48 && first <= 57 && /^[0-9]+$/.test(word);
  if (/^\p{N}+$/u.test(word)) return true;
  return hasCjk(word) && c.genericWords.has(stripPossessive(word));
}

const DELIVERED_CODE: LexiconEntry = {
  term: 'code sent to you',
  lang: 'en',
  class: 'credential',
  concept: 'otp',
  rule: 'strong',
  scope: 'any',
  suffix: false,
};

/** In prose: a code word and a delivery word (sent, texted, received...) in one sentence, not negated. */
function deliveredCode(c: Compiled, sentenceWords: readonly string[]): boolean {
  const codeHeads = c.compounds.find((k) => k.entry.concept === 'otp')?.heads;
  if (codeHeads === undefined) return false;
  const at = sentenceWords.findIndex((w) => codeHeads.has(w));
  if (at < 0 || !sentenceWords.some((w) => c.deliveryWords.has(w))) return false;
  return !negatedInSentence(c, sentenceWords.slice(0, at), sentenceWords.slice(at + 1));
}

const LOGIN_CONCEPTS: ReadonlySet<string> = new Set(['username', 'password', 'passphrase', 'pin', 'otp', 'credentials']);

/** Modifier + head compounds two words apart at most, in either order, or one word ending in the head. */
function compoundMatches(c: Compiled, words: readonly string[], taken: readonly WordMatch[]): WordMatch[] {
  const out: WordMatch[] = [];
  const free = (k: number): boolean => !taken.some((m) => k >= m.start && k < m.end) && !out.some((m) => k >= m.start && k < m.end);
  for (const k of c.compounds) {
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      // The set and prefix tests first: most words are neither a head nor a stem, and `free` scans the matches.
      if (k.heads.has(w)) {
        if (!free(i)) continue;
        for (let j = Math.max(0, i - 3); j <= Math.min(words.length - 1, i + 3); j++) {
          if (j === i || !free(j) || !k.modifiers.has(words[j]!)) continue;
          const between = words.slice(Math.min(i, j) + 1, Math.max(i, j));
          if (between.length > 2 || between.some((b) => !c.functionWords.has(b) && !k.modifiers.has(b) && !k.bridges.has(b))) continue;
          out.push({ start: Math.min(i, j), end: Math.max(i, j) + 1, entry: k.entry });
          break;
        }
        continue;
      }
      if (w.length < 6 || !k.stemStart.test(w) || !k.headTail.test(w) || !free(i)) continue;
      for (const head of k.heads) {
        if (w.length <= head.length + 2 || !w.endsWith(head)) continue;
        const stem = w.slice(0, w.length - head.length);
        if (k.stems.some((st) => stem === st || stem === `${st}s`)) {
          out.push({ start: i, end: i + 1, entry: k.entry });
          break;
        }
      }
    }
  }
  return out;
}

function isKnownHead(c: Compiled, word: string): boolean {
  if (c.knownHeads.has(word)) return true;
  return word.length > 3 && word.endsWith('s') && c.knownHeads.has(word.slice(0, -1));
}

function preserves(c: Compiled, word: string, cls: string): boolean {
  if (c.preservingAfter.has(word) || /^\p{N}+$/u.test(word)) return true;
  return cls === 'personal' && c.preservingAfterPersonal.has(word);
}

/** Head-final reading: a noun after the term (up to a preposition) is the head, the term its modifier. */
function isModifierBefore(c: Compiled, words: readonly string[], m: WordMatch, matches: readonly WordMatch[]): boolean {
  const bridges = c.compoundBridges.get(m.entry);
  for (let k = m.end; k < words.length; k++) {
    const w = words[k]!;
    if (c.boundary.has(w) || c.functionWords.has(w)) return false;
    // "Chiave privata SSH": a bridge word after the compound is not its head.
    if (bridges?.has(w) === true) continue;
    // Another term later in the label is the head itself (`basic_auth_user` asks for a user name),
    // except that the login of an online bank is a payment credential (`netbanking_user_id`).
    const next = matches.find((o) => o !== m && o.start === k && o.entry.class !== 'ordinary');
    if (next !== undefined) return !(m.entry.concept === 'bank-login' && LOGIN_CONCEPTS.has(next.entry.concept));
    if (!preserves(c, w, m.entry.class) && isKnownHead(c, w)) return true;
  }
  return false;
}

/** "Label shown next to the CVV input": the term sits after a preposition whose head is another noun. */
function isComplement(c: Compiled, words: readonly string[], m: WordMatch): boolean {
  let boundaryAt = -1;
  for (let k = m.start - 1; k >= 0; k--) {
    if (c.boundary.has(words[k]!)) {
      boundaryAt = k;
      break;
    }
  }
  if (boundaryAt <= 0) return false;
  for (let k = 0; k < boundaryAt; k++) {
    const w = words[k]!;
    if (c.functionWords.has(w) || c.boundary.has(w) || c.preservingHead.has(w) || isGenericWord(w)) continue;
    return true;
  }
  return false;
}

/** A service name before `key`/`pat`/`pass`/`creds` at the head of a label: `stripe_key`, `openai_key`. */
const SERVICE_SECRET_HEADS: ReadonlySet<string> = new Set(['key', 'keys', 'pat', 'pass', 'creds', 'cred', 'pw', 'pwd', 'sk']);
const SERVICE_KEY_ENTRY: LexiconEntry = {
  term: 'service key',
  lang: 'en',
  class: 'credential',
  concept: 'api-key',
  rule: 'strong',
  scope: 'name',
  suffix: false,
};

function serviceKeyHit(c: Compiled, words: readonly string[]): boolean {
  for (let i = 0; i + 1 < words.length; i++) {
    if (!c.providers.has(words[i]!) || !SERVICE_SECRET_HEADS.has(words[i + 1]!)) continue;
    const rest = words.slice(i + 2).filter((w) => !c.functionWords.has(w));
    if (rest.every((w) => preserves(c, w, 'credential'))) return true;
  }
  return false;
}

/** Negated in its sentence: a negator before it (since the last contrast word), or, in verb-final languages, after it. */
function negatedInSentence(c: Compiled, before: readonly string[], after: readonly string[]): boolean {
  for (let k = before.length - 1; k >= 0; k--) {
    const w = before[k]!;
    if (c.contrast.has(w)) return false;
    if (c.negators.has(w)) return true;
  }
  return after.some((w) => c.negatorsAfter.has(w));
}

/**
 * Reads one label (a property name or a title) or one prose text (a description or the message).
 * Property names are split as identifiers; everything else as prose, sentence by sentence.
 */
export function readText(text: string, source: TextSource): TextReading {
  // Servers send the same forms again and again: a small bounded memo of readings (texts of the
  // form, never answers) saves the reading of labels already seen.
  const key = `${source}\u0000${text}`;
  const memo = MEMO.get(key);
  if (memo !== undefined) return memo;
  const reading = readUncached(text, source);
  if (text.length <= MEMO_MAX_TEXT) {
    if (MEMO.size >= MEMO_ENTRIES) MEMO.delete(MEMO.keys().next().value!);
    MEMO.set(key, reading);
  }
  return reading;
}

const MEMO_ENTRIES = 2048;
const MEMO_MAX_TEXT = 2048;
const MEMO = new Map<string, TextReading>();

/** Forgets every memoised reading (for benchmarks that measure a cold reading). */
export function clearReadingMemo(): void {
  MEMO.clear();
}

/**
 * In a title, a phrase made only of qualifier words ("(private)", "[privée]", `COMPOUNDS`) says
 * what the phrase before it is: it joins that phrase, so "Deploy key (private)" reads like
 * "deploy key private" and the `private key` compound sees both words.
 */
function joinQualifiers(c: Compiled, phrases: string[][]): string[][] {
  if (phrases.length < 2) return phrases;
  const out: string[][] = [phrases[0]!];
  for (let p = 1; p < phrases.length; p++) {
    const phrase = phrases[p]!;
    const content = phrase.filter((w) => !c.functionWords.has(w));
    if (content.length === 0 || !content.every((w) => c.qualifierWords.has(w))) {
      out.push(phrase);
      continue;
    }
    // What follows the qualifier is still the same label: "Deploy key (private) title" asks for a title.
    const next = phrases[p + 1];
    out[out.length - 1] = [...out[out.length - 1]!, ...phrase, ...(next ?? [])];
    if (next !== undefined) p++;
  }
  return out;
}

function readUncached(text: string, source: TextSource): TextReading {
  const c = compiled();
  const inName = source === 'name';
  const label = source === 'name' || source === 'title';
  const sentences = inName ? [[identifierWords(text)]] : textSentences(text, label);
  if (label && !inName) for (let s = 0; s < sentences.length; s++) sentences[s] = joinQualifiers(c, sentences[s]!);
  const hits: TermHit[] = [];
  let identified = false;
  let generic = true;
  let mentionsAddress = false;
  let mentionsPayment = false;

  for (const phrases of sentences) {
    const sentenceWords = phrases.flat();
    if (!label && deliveredCode(c, sentenceWords)) {
      identified = true;
      hits.push({ source, entry: DELIVERED_CODE });
    }
    let offset = 0;
    for (const words of phrases) {
      for (const w of words) {
        if (c.ordinaryWords.has(w)) identified = true;
        if (!isGenericWord(w)) generic = false;
        if (c.addressWords.has(w)) mentionsAddress = true;
        if (c.paymentWords.has(w)) mentionsPayment = true;
      }
      const termMatches = scanWords(words, inName, label);
      const matches = [...termMatches, ...compoundMatches(c, words, termMatches)];
      for (const m of matches) {
        identified = true;
        if (m.entry.class === 'ordinary') continue;
        if (m.entry.rule !== 'phrase') {
          if (isNeutralised(words, m)) continue;
          if (label && !HEAD_INITIAL.has(m.entry.lang) && isModifierBefore(c, words, m, matches)) continue;
          if (label && !inName && isComplement(c, words, m)) continue;
          if (m.entry.rule === 'bare' && !isBare(words, m)) continue;
          if (m.entry.rule === 'head' && contentWords(words.slice(m.end)).length > 0) continue;
        }
        if (!inName && negatedInSentence(c, sentenceWords.slice(0, offset + m.start), sentenceWords.slice(offset + m.end))) continue;
        hits.push({ source, entry: m.entry });
      }
      if (label && serviceKeyHit(c, words)) {
        identified = true;
        hits.push({ source, entry: SERVICE_KEY_ENTRY });
      }
      offset += words.length;
    }
  }

  if (hasCjk(text)) {
    const compact = compactText(text, label);
    if (c.ordinaryCjk.some((w) => compact.includes(w))) identified = true;
    if (c.addressCjk.some((w) => compact.includes(w))) mentionsAddress = true;
    if (c.paymentCjk.some((w) => compact.includes(w))) mentionsPayment = true;
    for (const m of scanCjk(compact)) {
      identified = true;
      if (m.entry.class === 'ordinary') continue;
      if (m.entry.rule !== 'phrase' && cjkNeutralised(compact, m)) continue;
      if (!inName && cjkNegated(compact, m)) continue;
      if (m.entry.rule === 'bare' && stripPossessive(compact) !== compact.slice(m.start, m.end)) continue;
      hits.push({ source, entry: m.entry });
    }
  }
  return { hits, identified, generic, mentionsAddress, mentionsPayment };
}
