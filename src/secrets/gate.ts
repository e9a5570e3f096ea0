/**
 * A first-match search over a list of regular expressions that tries only the patterns a text can
 * match: one pass over the text reads its character pairs and which delimiters it holds, and a
 * pattern is tested only when the text has a pair its matches can start with and every character
 * all its matches contain. Most texts (random ids, prose, base64) start no secret format, and
 * then no pattern runs at all; one regex of alternatives tries every pattern at every position.
 *
 * Both conditions are derived from each pattern's own source at load time, never written by hand:
 * the set of two-character starts of the strings it matches, and the characters every match
 * contains. Both are necessary conditions, so the answer is the one of testing every pattern in
 * order. A pattern whose syntax the reader does not know (a back-reference, a flag other than `i`)
 * or that can match fewer than two characters is simply always tested.
 */

/** Symbols: the ASCII code units 0–127 each, and one symbol for every code unit from 128 up. */
const SYMBOLS = 129;
const OTHER = 128;

type Chars = Uint8Array;

const noChars = (): Chars => new Uint8Array(SYMBOLS);
const allChars = (): Chars => new Uint8Array(SYMBOLS).fill(1);

function charsOf(...codes: number[]): Chars {
  const out = noChars();
  for (const c of codes) out[Math.min(c, OTHER)] = 1;
  return out;
}

function rangeChars(out: Chars, from: number, to: number): void {
  for (let c = from; c <= to && c < OTHER; c++) out[c] = 1;
  if (to >= OTHER) out[OTHER] = 1;
}

function union(a: Chars, b: Chars): Chars {
  const out = noChars();
  for (let i = 0; i < SYMBOLS; i++) out[i] = a[i]! | b[i]!;
  return out;
}

function complement(a: Chars): Chars {
  const out = noChars();
  for (let i = 0; i < OTHER; i++) out[i] = a[i]! ^ 1;
  // Code units from 128 up are one symbol: a negated class holds some of them whatever it lists.
  out[OTHER] = 1;
  return out;
}

const isEmpty = (a: Chars): boolean => a.every((x) => x === 0);

/** `\d`, `\w`, `\s` (ECMAScript's whitespace includes non-ASCII spaces). */
const DIGITS = (() => {
  const out = noChars();
  rangeChars(out, 0x30, 0x39);
  return out;
})();
const WORD = (() => {
  const out = noChars();
  rangeChars(out, 0x30, 0x39);
  rangeChars(out, 0x41, 0x5a);
  rangeChars(out, 0x61, 0x7a);
  out[0x5f] = 1;
  return out;
})();
const SPACE = charsOf(0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0);

/**
 * What the analysis keeps of the strings a piece of pattern matches: whether the empty string is
 * one, the first characters, the one-character strings, the two-character starts (as products of
 * two character sets) and the characters every string contains.
 */
interface Shape {
  readonly nullable: boolean;
  readonly first: Chars;
  readonly singles: Chars;
  readonly pairs: readonly (readonly [Chars, Chars])[];
  /** Symbols every matched string contains. */
  readonly required: ReadonlySet<number>;
}

const EMPTY: Shape = { nullable: true, first: noChars(), singles: noChars(), pairs: [], required: new Set() };

function charShape(chars: Chars): Shape {
  let only = -1;
  let count = 0;
  for (let i = 0; i < SYMBOLS; i++)
    if (chars[i] === 1) {
      only = i;
      count++;
    }
  return { nullable: false, first: chars, singles: chars, pairs: [], required: new Set(count === 1 && only < OTHER ? [only] : []) };
}

function concat(a: Shape, b: Shape): Shape {
  const pairs = [...a.pairs];
  if (!isEmpty(a.singles) && !isEmpty(b.first)) pairs.push([a.singles, b.first]);
  if (a.nullable) pairs.push(...b.pairs);
  const singles = union(b.nullable ? a.singles : noChars(), a.nullable ? b.singles : noChars());
  return {
    nullable: a.nullable && b.nullable,
    first: a.nullable ? union(a.first, b.first) : a.first,
    singles,
    pairs,
    required: new Set([...a.required, ...b.required]),
  };
}

function intersection(a: ReadonlySet<number>, b: ReadonlySet<number>): ReadonlySet<number> {
  const out = new Set<number>();
  for (const c of a) if (b.has(c)) out.add(c);
  return out;
}

function alternation(shapes: readonly Shape[]): Shape {
  if (shapes.length === 1) return shapes[0]!;
  let first = noChars();
  let singles = noChars();
  const pairs: (readonly [Chars, Chars])[] = [];
  let required: ReadonlySet<number> | null = null;
  for (const s of shapes) {
    first = union(first, s.first);
    singles = union(singles, s.singles);
    pairs.push(...s.pairs);
    required = required === null ? s.required : intersection(required, s.required);
  }
  return { nullable: shapes.some((s) => s.nullable), first, singles, pairs, required: required ?? new Set() };
}

/**
 * `x{min,max}`: for the first two characters, two copies are enough (copies past `min` optional);
 * keeping fewer than `min` copies only widens what the shape allows, which is safe.
 */
function repeat(x: Shape, min: number, max: number): Shape {
  const copies = Math.min(max, 2);
  let out = EMPTY;
  for (let i = 0; i < copies; i++) out = concat(out, i < min ? x : alternation([x, EMPTY]));
  return out;
}

class Unsupported extends Error {}

/** A reader of the regular-expression syntax the secret formats use (ECMAScript, no `u` flag). */
class Reader {
  private at = 0;

  constructor(
    private readonly source: string,
    private readonly ignoreCase: boolean,
  ) {}

  read(): Shape {
    const shape = this.disjunction();
    if (this.at !== this.source.length) throw new Unsupported();
    return shape;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private disjunction(): Shape {
    const alternatives = [this.alternative()];
    while (this.peek() === '|') {
      this.at++;
      alternatives.push(this.alternative());
    }
    return alternation(alternatives);
  }

  private alternative(): Shape {
    let shape = EMPTY;
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) shape = concat(shape, this.term());
    return shape;
  }

  private term(): Shape {
    const c = this.peek()!;
    if (c === '^' || c === '$') {
      this.at++;
      return EMPTY;
    }
    if (this.source.startsWith('\\b', this.at) || this.source.startsWith('\\B', this.at)) {
      this.at += 2;
      return EMPTY;
    }
    if (this.source.startsWith('(?=', this.at) || this.source.startsWith('(?!', this.at)) return this.lookaround(3);
    if (this.source.startsWith('(?<=', this.at) || this.source.startsWith('(?<!', this.at)) return this.lookaround(4);
    const atom = this.atom();
    return this.quantified(atom);
  }

  /** A lookaround matches no characters: its content is read and dropped. */
  private lookaround(open: number): Shape {
    this.at += open;
    this.disjunction();
    this.expect(')');
    if (this.isQuantifier()) throw new Unsupported();
    return EMPTY;
  }

  private expect(c: string): void {
    if (this.peek() !== c) throw new Unsupported();
    this.at++;
  }

  private isQuantifier(): boolean {
    const c = this.peek();
    return c === '*' || c === '+' || c === '?' || c === '{';
  }

  private quantified(atom: Shape): Shape {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      this.at++;
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (m === null) throw new Unsupported();
      this.at += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else {
      return atom;
    }
    if (this.peek() === '?') this.at++;
    return repeat(atom, min, max);
  }

  private atom(): Shape {
    const c = this.peek()!;
    if (c === '(') {
      this.at++;
      if (this.source.startsWith('?:', this.at)) this.at += 2;
      else if (this.source.startsWith('?<', this.at)) {
        const close = this.source.indexOf('>', this.at);
        if (close < 0) throw new Unsupported();
        this.at = close + 1;
      } else if (this.peek() === '?') throw new Unsupported();
      const inner = this.disjunction();
      this.expect(')');
      return inner;
    }
    if (c === '[') return charShape(this.cased(this.charClass()));
    if (c === '.') {
      this.at++;
      const any = allChars();
      any[0x0a] = 0;
      any[0x0d] = 0;
      return charShape(any);
    }
    if (c === '\\') {
      this.at++;
      return charShape(this.cased(this.escape(false)));
    }
    // A lone `]` or `}` is a literal without the `u` flag; a `{` that is no quantifier is not read.
    if ('*+?{)|'.includes(c)) throw new Unsupported();
    this.at++;
    return charShape(this.cased(charsOf(c.charCodeAt(0))));
  }

  /** Under `i`, both cases of an ASCII letter, and any code unit from 128 up (folding reaches some). */
  private cased(chars: Chars): Chars {
    if (!this.ignoreCase) return chars;
    const out = union(chars, noChars());
    for (let c = 0x41; c <= 0x5a; c++) {
      if (chars[c] === 1 || chars[c + 0x20] === 1) {
        out[c] = 1;
        out[c + 0x20] = 1;
        out[OTHER] = 1;
      }
    }
    return out;
  }

  /** The escape after a `\`; inside a class `\b` is a backspace. */
  private escape(inClass: boolean): Chars {
    const c = this.source[this.at++];
    switch (c) {
      case undefined:
        throw new Unsupported();
      case 'd':
        return DIGITS;
      case 'D':
        return complement(DIGITS);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE_ANY;
      case 'S':
        return complement(SPACE);
      case 'n':
        return charsOf(0x0a);
      case 'r':
        return charsOf(0x0d);
      case 't':
        return charsOf(0x09);
      case 'f':
        return charsOf(0x0c);
      case 'v':
        return charsOf(0x0b);
      case 'b':
        if (inClass) return charsOf(0x08);
        throw new Unsupported();
      case 'x': {
        const hex = /^[0-9a-fA-F]{2}/.exec(this.source.slice(this.at));
        if (hex === null) throw new Unsupported();
        this.at += 2;
        return charsOf(parseInt(hex[0], 16));
      }
      case 'u': {
        const hex = /^[0-9a-fA-F]{4}/.exec(this.source.slice(this.at));
        if (hex === null) throw new Unsupported();
        this.at += 4;
        return charsOf(parseInt(hex[0], 16));
      }
      default:
        // Back-references, `\c`, `\0`, `\p`, `\k`: not read here.
        if (/[A-Za-z0-9]/.test(c)) throw new Unsupported();
        return charsOf(c.charCodeAt(0));
    }
  }

  private charClass(): Chars {
    this.at++;
    const negated = this.peek() === '^';
    if (negated) this.at++;
    let out = noChars();
    // `[]` is the empty class and `[^]` any character, as ECMAScript reads them.
    while (this.peek() !== ']') {
      if (this.peek() === undefined) throw new Unsupported();
      const from = this.classAtom();
      if (this.peek() === '-' && this.source[this.at + 1] !== ']' && this.source[this.at + 1] !== undefined) {
        this.at++;
        const to = this.classAtom();
        const lo = singleCode(from);
        const hi = singleCode(to);
        if (lo === null || hi === null) throw new Unsupported();
        rangeChars(out, lo, hi);
      } else {
        out = union(out, from);
      }
    }
    this.at++;
    return negated ? complement(out) : out;
  }

  private classAtom(): Chars {
    const c = this.source[this.at++]!;
    if (c === '\\') return this.escape(true);
    return charsOf(c.charCodeAt(0));
  }
}

const SPACE_ANY = (() => {
  const out = union(SPACE, noChars());
  out[OTHER] = 1;
  return out;
})();

/** The one code unit a class atom stands for (for a range end), or null for `\d` and the like. */
function singleCode(chars: Chars): number | null {
  let code: number | null = null;
  for (let i = 0; i < OTHER; i++) {
    if (chars[i] !== 1) continue;
    if (code !== null) return null;
    code = i;
  }
  return code;
}

/** What the gate keeps of one pattern; null when it must always be tested. */
function analyse(pattern: RegExp): Shape | null {
  if (pattern.global || pattern.sticky || /[^i]/.test(pattern.flags)) return null;
  try {
    const shape = new Reader(pattern.source, pattern.ignoreCase).read();
    // A match of fewer than two characters has no pair to start with.
    return shape.nullable || !isEmpty(shape.singles) ? { ...shape, pairs: [] } : shape;
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

/** The indices of the patterns the gate cannot read, which every text therefore tests. */
export function ungatedPatterns(patterns: readonly RegExp[]): number[] {
  const out: number[] = [];
  patterns.forEach((pattern, i) => {
    const shape = analyse(pattern);
    if (shape === null || shape.pairs.length === 0) out.push(i);
  });
  return out;
}

/** Returns the index of the first pattern (in list order) that matches a text, or -1. */
export type FirstMatch = (text: string) => number;

/** Patterns per gate: their hits fit in two 32-bit words. */
const CHUNK = 64;

/**
 * Compiles the gate for `patterns` (non-global, no flag but `i`; any other is always tested).
 * Past 64 patterns, each run of 64 gets a gate of its own, tried in order.
 *
 * @example compileFirstMatch([/ab+c/, /\d{3}/])('xx 123') // 1
 */
export function compileFirstMatch(patterns: readonly RegExp[]): FirstMatch {
  if (patterns.length <= CHUNK) return compileChunk(patterns);
  const head = compileChunk(patterns.slice(0, CHUNK));
  const rest = compileFirstMatch(patterns.slice(CHUNK));
  return (text) => {
    const first = head(text);
    if (first >= 0) return first;
    const later = rest(text);
    return later < 0 ? -1 : later + CHUNK;
  };
}

function compileChunk(patterns: readonly RegExp[]): FirstMatch {
  const count = patterns.length;
  const shapes = patterns.map(analyse);

  // The characters patterns require, a bit each (32 at most: delimiters first, they tell most).
  const requiredCodes = new Set<number>();
  for (const s of shapes) if (s !== null) for (const c of s.required) requiredCodes.add(c);
  const byTelling = [...requiredCodes].sort((a, b) => Number(isAlnum(a)) - Number(isAlnum(b)) || a - b).slice(0, 32);
  // One entry per symbol; the one for code units from 128 up stays 0 (no pattern requires it).
  const charBit = new Int32Array(SYMBOLS);
  byTelling.forEach((c, i) => {
    charBit[c] = 1 << i;
  });
  const required = new Int32Array(count);
  // Patterns tested whatever the pairs: bit r of word r >> 5.
  const always = [0, 0];
  for (let r = 0; r < count; r++) {
    const s = shapes[r]!;
    if (s !== null) for (const c of s.required) required[r]! |= charBit[c]!;
    if (s === null || s.pairs.length === 0) always[r >> 5]! |= 1 << (r & 31);
  }

  // Pair → the patterns it may start, as an id of that set; `masks0`/`masks1` hold each set.
  const pairRules = new Map<number, Set<number>>();
  shapes.forEach((s, r) => {
    if (s === null) return;
    for (const [a, b] of s.pairs)
      for (let x = 0; x < SYMBOLS; x++) {
        if (a[x] !== 1) continue;
        for (let y = 0; y < SYMBOLS; y++) {
          if (b[y] !== 1) continue;
          const pair = x * SYMBOLS + y;
          let rules = pairRules.get(pair);
          if (rules === undefined) pairRules.set(pair, (rules = new Set()));
          rules.add(r);
        }
      }
  });
  const ids = new Map<string, number>([['', 0]]);
  const masks: [number, number][] = [[0, 0]];
  const pairSets = new Uint16Array(SYMBOLS * SYMBOLS);
  for (const [pair, rules] of pairRules) {
    const key = [...rules].sort((a, b) => a - b).join(',');
    let id = ids.get(key);
    if (id === undefined) {
      id = masks.length;
      ids.set(key, id);
      const mask: [number, number] = [0, 0];
      for (const r of rules) mask[r >> 5]! |= 1 << (r & 31);
      masks.push(mask);
    }
    pairSets[pair] = id;
  }
  const masks0 = Int32Array.from(masks, (m) => m[0]);
  const masks1 = Int32Array.from(masks, (m) => m[1]);
  const always0 = always[0]!;
  const always1 = always[1]!;

  // The candidates of one word, lowest index first, each tested when the text holds what it requires.
  const settle = (text: string, bits: number, base: number, present: number): number => {
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      const r = base + (31 - Math.clz32(low));
      if ((required[r]! & ~present) === 0 && patterns[r]!.test(text)) return r;
    }
    return -1;
  };
  return (text: string): number => {
    const n = text.length;
    let hits0 = always0;
    let hits1 = always1;
    let present = 0;
    let prev = 0;
    for (let i = 0; i < n; i++) {
      const symbol = Math.min(text.charCodeAt(i), OTHER);
      present |= charBit[symbol]!;
      const set = i === 0 ? 0 : pairSets[prev * SYMBOLS + symbol]!;
      if (set !== 0) {
        hits0 |= masks0[set]!;
        hits1 |= masks1[set]!;
      }
      prev = symbol;
    }
    const r = settle(text, hits0, 0, present);
    return r >= 0 ? r : settle(text, hits1, 32, present);
  };
}

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
