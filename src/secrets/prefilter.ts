/**
 * A necessary condition for a set of secret patterns, derived from the patterns' own sources: a
 * screen that tells, in one pass over a value and without running the patterns, that none of them
 * can match it. It answers for values of printable ASCII without `@` and `"` (ids, nonces,
 * base64url, words, paths and most URLs: what URL parameters hold); any other value is left to
 * the patterns themselves.
 *
 * Why it holds: a pattern that needs a character outside that alphabet cannot match such a value.
 * Every other pattern is screened by three characters every match of it holds: either the three
 * it starts with, which for a pattern that starts at a word boundary (`(?<![A-Za-z0-9_])`) are
 * only looked for where a word starts and for an anchored one (`^`) only at the start, or three
 * consecutive characters of a literal it must contain (`:AA` of a bot token, `ig=` of a
 * signature), looked for anywhere. A pattern that starts with a group is screened once per
 * alternative of the group (`(?:^|;)x` as `^x` and `;x`). The sources are read
 * by a small parser of the RegExp syntax the patterns use; a pattern it cannot read, or one that
 * could match fewer than three characters, turns the screen off (`screenFor(...).enabled` is
 * false, and a test holds the shipped rules to an enabled screen).
 */

/** The screen's alphabet: printable ASCII but `@` (the user-info of a connection string) and `"` (JSON keys). */
const ALPHABET = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i))
  .filter((ch) => ch !== '@' && ch !== '"')
  .join('');
const SIZE = ALPHABET.length;
/** Window length the screen compares. */
const K = 3;

/** The alphabet index of each ASCII code, -1 outside it. */
const INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < SIZE; i++) INDEX[ALPHABET.charCodeAt(i)] = i;
/** By character code: characters that end a word (`[^A-Za-z0-9_]`), after which a boundary pattern can start. */
const ENDS_WORD_CODE = new Uint8Array(128);
for (let c = 0; c < 128; c++) ENDS_WORD_CODE[c] = /[A-Za-z0-9_]/.test(String.fromCharCode(c)) ? 0 : 1;
/** In the pair table: one of the two characters is not in the alphabet. */
const OUTSIDE = 0x80;

/** A character class: a bit per ASCII code, and whether it also matches characters above ASCII. */
interface CharSet {
  readonly ascii: Uint32Array;
  readonly other: boolean;
}

type PatternNode =
  | { readonly kind: 'set'; readonly set: CharSet }
  | { readonly kind: 'group'; readonly alternatives: readonly Sequence[] }
  /**
   * Zero-width: `^` (`start`), `$`, `\b`, lookarounds; `before` is the class of a negative
   * lookbehind of one character.
   */
  | { readonly kind: 'assertion'; readonly before: CharSet | null; readonly start?: true };

interface Item {
  readonly node: PatternNode;
  readonly min: number;
  readonly max: number;
}

type Sequence = readonly Item[];

class Unsupported extends Error {}

function emptySet(): { ascii: Uint32Array; other: boolean } {
  return { ascii: new Uint32Array(4), other: false };
}

function addRange(set: { ascii: Uint32Array; other: boolean }, from: number, to: number): void {
  for (let c = from; c <= to; c++) {
    if (c < 128) set.ascii[c >> 5]! |= 1 << (c & 31);
    else set.other = true;
  }
}

function addSet(set: { ascii: Uint32Array; other: boolean }, more: CharSet): void {
  for (let w = 0; w < 4; w++) set.ascii[w]! |= more.ascii[w]!;
  set.other ||= more.other;
}

function complement(set: CharSet): CharSet {
  const ascii = new Uint32Array(4);
  for (let w = 0; w < 4; w++) ascii[w] = ~set.ascii[w]!;
  // A negated class matches some character above ASCII unless it lists them all, which no pattern does.
  return { ascii, other: true };
}

function has(set: CharSet, c: number): boolean {
  return c < 128 ? (set.ascii[c >> 5]! & (1 << (c & 31))) !== 0 : set.other;
}

function classOf(...ranges: readonly (readonly [number, number])[]): CharSet {
  const set = emptySet();
  for (const [from, to] of ranges) addRange(set, from, to);
  return set;
}

const DIGITS = classOf([0x30, 0x39]);
const WORD = classOf([0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a], [0x5f, 0x5f]);
// `\s`: the ASCII blanks, and (without the `u` flag, too) Unicode spaces above ASCII.
const SPACE = { ascii: classOf([0x09, 0x0d], [0x20, 0x20]).ascii, other: true };
const DOT = complement(classOf([0x0a, 0x0a], [0x0d, 0x0d]));

/** A parser of the RegExp syntax the secret patterns use (no flags); anything else is `Unsupported`. */
class Parser {
  private at = 0;
  constructor(private readonly source: string) {}

  parse(): readonly Sequence[] {
    const alternatives = this.alternatives();
    if (this.at !== this.source.length) throw new Unsupported(`unexpected "${this.source[this.at]}"`);
    return alternatives;
  }

  private alternatives(): Sequence[] {
    const out = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at++;
      out.push(this.sequence());
    }
    return out;
  }

  private sequence(): Item[] {
    const items: Item[] = [];
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const node = this.atom();
      const [min, max] = this.quantifier();
      if (node.kind === 'assertion' && (min !== 1 || max !== 1)) throw new Unsupported('a quantified assertion');
      items.push({ node, min, max });
    }
    return items;
  }

  private atom(): PatternNode {
    const c = this.source[this.at++]!;
    switch (c) {
      case '^':
        return { kind: 'assertion', before: null, start: true };
      case '$':
        return { kind: 'assertion', before: null };
      case '.':
        return { kind: 'set', set: DOT };
      case '[':
        return { kind: 'set', set: this.characterClass() };
      case '\\':
        return this.escape();
      case '(':
        return this.group();
      case '*':
      case '+':
      case '?':
      case '{':
      case ')':
      case ']':
      case '}':
        throw new Unsupported(`"${c}" out of place`);
      default:
        return { kind: 'set', set: classOf([c.charCodeAt(0), c.charCodeAt(0)]) };
    }
  }

  private group(): PatternNode {
    const rest = this.source.slice(this.at, this.at + 3);
    if (rest.startsWith('?:')) {
      this.at += 2;
      return { kind: 'group', alternatives: this.closeGroup() };
    }
    if (rest.startsWith('?<!') || rest.startsWith('?<=') || rest.startsWith('?!') || rest.startsWith('?=')) {
      const negativeBehind = rest === '?<!';
      this.at += rest.startsWith('?<') ? 3 : 2;
      const inner = this.closeGroup();
      const only = inner.length === 1 && inner[0]!.length === 1 ? inner[0]![0]! : null;
      const before = negativeBehind && only !== null && only.node.kind === 'set' && only.min === 1 && only.max === 1 ? only.node.set : null;
      return { kind: 'assertion', before };
    }
    if (rest.startsWith('?')) throw new Unsupported('a named or modified group');
    return { kind: 'group', alternatives: this.closeGroup() };
  }

  private closeGroup(): Sequence[] {
    const alternatives = this.alternatives();
    if (this.source[this.at] !== ')') throw new Unsupported('an unclosed group');
    this.at++;
    return alternatives;
  }

  private escape(): PatternNode {
    const c = this.source[this.at];
    if (c === 'b' || c === 'B') {
      this.at++;
      return { kind: 'assertion', before: null };
    }
    return { kind: 'set', set: this.escapedSet() };
  }

  /** The class of an escape after its `\` (inside or outside brackets). */
  private escapedSet(): CharSet {
    const c = this.source[this.at++];
    switch (c) {
      case undefined:
        throw new Unsupported('a trailing backslash');
      case 'd':
        return DIGITS;
      case 'D':
        return complement(DIGITS);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'n':
        return classOf([0x0a, 0x0a]);
      case 'r':
        return classOf([0x0d, 0x0d]);
      case 't':
        return classOf([0x09, 0x09]);
      case 'u':
      case 'x': {
        const length = c === 'u' ? 4 : 2;
        const hex = this.source.slice(this.at, this.at + length);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length) throw new Unsupported(`\\${c}${hex}`);
        this.at += length;
        const code = Number.parseInt(hex, 16);
        return classOf([code, code]);
      }
      default:
        if (/[A-Za-z0-9]/.test(c)) throw new Unsupported(`\\${c}`);
        return classOf([c.charCodeAt(0), c.charCodeAt(0)]);
    }
  }

  private characterClass(): CharSet {
    const negated = this.source[this.at] === '^';
    if (negated) this.at++;
    const set = emptySet();
    while (this.source[this.at] !== ']') {
      if (this.at >= this.source.length) throw new Unsupported('an unclosed class');
      const low = this.classMember();
      if (this.source[this.at] === '-' && this.source[this.at + 1] !== ']' && this.at + 1 < this.source.length) {
        this.at++;
        const high = this.classMember();
        const from = singleCode(low);
        const to = singleCode(high);
        if (from === null || to === null || to < from) throw new Unsupported('a class range');
        addRange(set, from, to);
      } else {
        addSet(set, low);
      }
    }
    this.at++;
    return negated ? complement(set) : set;
  }

  private classMember(): CharSet {
    const c = this.source[this.at++]!;
    if (c === '\\') return this.escapedSet();
    if (c === '[') throw new Unsupported('a nested class');
    return classOf([c.charCodeAt(0), c.charCodeAt(0)]);
  }

  private quantifier(): readonly [number, number] {
    const c = this.source[this.at];
    let bounds: readonly [number, number];
    if (c === '?') bounds = [0, 1];
    else if (c === '*') bounds = [0, Number.POSITIVE_INFINITY];
    else if (c === '+') bounds = [1, Number.POSITIVE_INFINITY];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (m === null) throw new Unsupported('a brace that is not a quantifier');
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
      this.at += m[0].length - 1;
      bounds = [min, max];
    } else return [1, 1];
    this.at++;
    if (this.source[this.at] === '?') this.at++;
    return bounds;
  }
}

function singleCode(set: CharSet): number | null {
  if (set.other) return null;
  let found: number | null = null;
  for (let c = 0; c < 128; c++) {
    if (!has(set, c)) continue;
    if (found !== null) return null;
    found = c;
  }
  return found;
}

/** The alphabet indexes of the characters a class admits. */
function alphabetMembers(set: CharSet): number[] {
  const out: number[] = [];
  for (let i = 0; i < SIZE; i++) if (has(set, ALPHABET.charCodeAt(i))) out.push(i);
  return out;
}

/** True when every match of `node` holds a character outside the alphabet (so no token-like value matches it). */
function nodeLeaves(node: PatternNode): boolean {
  switch (node.kind) {
    case 'set':
      return alphabetMembers(node.set).length === 0;
    case 'group':
      return node.alternatives.every(sequenceLeaves);
    case 'assertion':
      return false;
  }
}

function sequenceLeaves(sequence: Sequence): boolean {
  return sequence.some((item) => item.min >= 1 && nodeLeaves(item.node));
}

// A set of prefixes of at most `K` characters, as a list of products: each prefix is a row of
// slots, a slot being the alphabet indexes one character can take (`[MNO][A-Za-z0-9_-]` is one
// row of two slots, not 195 strings).
type Slot = readonly number[];
type Prefix = readonly Slot[];
/** More rows than this for one pattern: the screen gives up on it (and turns off). */
const MAX_ROWS = 4096;

function checkSize(rows: readonly Prefix[]): void {
  if (rows.length > MAX_ROWS) throw new Unsupported('too many prefixes');
}

/**
 * The alphabet strings that a match of `node` can start with, cut to `k` characters (shorter
 * only where a whole match is shorter). Assertions other than the leading boundary are ignored,
 * which only adds prefixes.
 */
function nodePrefixes(node: PatternNode, k: number): Prefix[] {
  switch (node.kind) {
    case 'set': {
      const members = alphabetMembers(node.set);
      return members.length === 0 ? [] : [[members]];
    }
    case 'group': {
      const out: Prefix[] = [];
      for (const alternative of node.alternatives) out.push(...sequencePrefixes(alternative, k));
      checkSize(out);
      return out;
    }
    case 'assertion':
      return [[]];
  }
}

function extend(heads: readonly Prefix[], k: number, tails: (room: number) => readonly Prefix[]): Prefix[] {
  const out: Prefix[] = [];
  const byRoom = new Map<number, readonly Prefix[]>();
  for (const head of heads) {
    const room = k - head.length;
    if (room <= 0) {
      out.push(head);
      continue;
    }
    let more = byRoom.get(room);
    if (more === undefined) {
      more = tails(room);
      byRoom.set(room, more);
    }
    for (const tail of more) out.push(tail.length === 0 ? head : [...head, ...tail]);
    checkSize(out);
  }
  return out;
}

function allFull(rows: readonly Prefix[], k: number): boolean {
  return rows.every((row) => row.length >= k);
}

function itemPrefixes(item: Item, k: number): Prefix[] {
  const out: Prefix[] = [];
  // The prefixes of `count` repetitions of the node.
  let level: Prefix[] = [[]];
  for (let count = 0; ; count++) {
    if (count >= item.min) out.push(...level);
    if (count >= item.max) break;
    if (allFull(level, k)) {
      // Every prefix is full: more repetitions leave them as they are, up to the minimum and past it.
      if (count < item.min) out.push(...level);
      break;
    }
    if (count > item.min + k) throw new Unsupported('a repetition of something that can match nothing');
    level = extend(level, k, (room) => nodePrefixes(item.node, room));
  }
  checkSize(out);
  return out;
}

function sequencePrefixes(sequence: Sequence, k: number): Prefix[] {
  let heads: Prefix[] = [[]];
  for (const item of sequence) {
    // Once every prefix is full, the rest of the sequence adds nothing to them.
    if (allFull(heads, k)) break;
    heads = extend(heads, k, (room) => itemPrefixes(item, room));
  }
  return heads;
}

/** A class that holds every word character: a lookbehind on it makes a start boundary. */
function coversWord(set: CharSet): boolean {
  for (let c = 0; c < 128; c++) if (has(WORD, c) && !has(set, c)) return false;
  return true;
}

// How often a letter turns up in text (English letter frequencies, halved: URL values hold other
// characters too), and the other characters, roughly. Used only to pick, of the windows a pattern
// offers, the one least likely to send a harmless value to the full patterns.
const LETTERS = 'etaoinshrdlcumwfgypbvkjxqz';
const LETTER_WEIGHTS = [
  0.061, 0.045, 0.041, 0.038, 0.035, 0.034, 0.032, 0.03, 0.03, 0.021, 0.02, 0.014, 0.014, 0.012, 0.012, 0.011, 0.01, 0.01, 0.0095, 0.0075,
  0.005, 0.004, 0.001, 0.001, 0.001, 0.001,
];
// Windows of URL boilerplate: present in most URL values, so never worth picking.
const COMMON = new Set(
  ['https://www.', 'http://', '.com/', '.org/', '.net/', '.io/', '.co.'].flatMap((text) =>
    Array.from({ length: Math.max(0, text.length - K + 1) }, (_, i) => text.slice(i, i + K)),
  ),
);

function weight(index: number): number {
  const ch = ALPHABET[index]!;
  const lower = ch.toLowerCase();
  const letter = LETTERS.indexOf(lower);
  if (letter >= 0) return ch === lower ? LETTER_WEIGHTS[letter]! : LETTER_WEIGHTS[letter]! / 4;
  if (ch >= '0' && ch <= '9') return 0.01;
  if ('./-_'.includes(ch)) return 0.02;
  if (' :'.includes(ch)) return 0.01;
  if ('=&'.includes(ch)) return 0.003;
  return 0.002;
}

function rowWeight(row: Prefix): number {
  let w = 1;
  for (const slot of row) w *= slot.reduce((sum, i) => sum + weight(i), 0);
  if (row.every((slot) => slot.length === 1) && COMMON.has(row.map((slot) => ALPHABET[slot[0]!]).join(''))) w *= 1000;
  return w;
}

/** Where a screen's windows are looked for: at the start of the value, at word starts, or anywhere. */
type Where = 'start' | 'word' | 'anywhere';

/** A set of windows for one pattern, and where they are looked for. */
interface Screen {
  readonly rows: readonly Prefix[];
  readonly where: Where;
  readonly cost: number;
}

// A window looked for anywhere costs a lookup at every position, one at a word start far fewer.
const FACTOR: Record<Where, number> = { start: 0.1, word: 1, anywhere: 4 };

/** The literal runs every match of `sequence` holds, as windows of `K` characters. */
function literalWindows(sequence: Sequence): Prefix[] {
  const out: Prefix[] = [];
  let run: number[] = [];
  const flush = (): void => {
    for (let i = 0; i + K <= run.length; i++) out.push(run.slice(i, i + K).map((c) => [c]));
    run = [];
  };
  for (const item of sequence) {
    const code = item.node.kind === 'set' && item.min === 1 && item.max === 1 ? singleCode(item.node.set) : null;
    const index = code === null ? -1 : INDEX[code]!;
    if (index >= 0) run.push(index);
    else flush();
  }
  flush();
  return out;
}

/**
 * An alternative whose first item is a group, once per alternative of the group
 * (`(?:^|;)x` is `^x` and `;x`), so that each is screened where it can start.
 */
function spread(alternative: Sequence): Sequence[] {
  const lead = alternative[0];
  if (lead === undefined || lead.node.kind !== 'group' || lead.min !== 1 || lead.max !== 1) return [alternative];
  return lead.node.alternatives.map((head) => [...head, ...alternative.slice(1)]);
}

/** The cheapest screen of one alternative of a pattern. */
function screenOf(alternative: Sequence, source: string): Screen {
  const lead = alternative[0];
  let where: Where = 'anywhere';
  if (lead !== undefined && lead.node.kind === 'assertion') {
    if (lead.node.start === true) where = 'start';
    else if (lead.node.before !== null && coversWord(lead.node.before)) where = 'word';
  }
  const rows = sequencePrefixes(alternative, K);
  for (const row of rows) if (row.length < K) throw new Unsupported(`a match shorter than ${K} characters in ${source}`);
  let best: Screen = { rows, where, cost: rows.reduce((sum, row) => sum + rowWeight(row), 0) * FACTOR[where] };
  for (const window of literalWindows(alternative)) {
    const cost = rowWeight(window) * FACTOR.anywhere;
    if (cost < best.cost) best = { rows: [window], where: 'anywhere', cost };
  }
  return best;
}

export interface SecretScreen {
  /** False when a pattern could not be read or bounded: then `mayMatch` always answers true. */
  readonly enabled: boolean;
  /** Why the screen is off (`null` when it is on); for the test that keeps it on. */
  readonly reason: string | null;
  /** False only when no pattern can match `text` (each pattern tested on its own, or joined with `|`). */
  mayMatch(text: string): boolean;
  /**
   * `mayMatch`, counting on the way how many characters of `text` fall in each class of
   * `classes` (by ASCII code) into `counts` from `at` on (`counts[at + class]`), which it adds to.
   * When it answers false it has read the whole text, and all of it is ASCII; when true, `counts`
   * holds a part of the text only.
   */
  mayMatchCounting(text: string, classes: Uint8Array, counts: Int32Array, at: number): boolean;
}

// Two levels: a byte per pair of characters says whether a window starts with it where a value
// starts (bit 1), where a word starts (bit 2) or anywhere (bit 4); a bit per window then decides.
const FLAG: Record<Where, number> = { start: 1, word: 2, anywhere: 4 };
// What a window is looked up for where it stands: the value's start (also a word start), a word start, elsewhere.
const ALL = FLAG.start | FLAG.word | FLAG.anywhere;
const AT_WORD = FLAG.word | FLAG.anywhere;
const ANYWHERE = FLAG.anywhere;

/** Builds the screen of the patterns given by their sources (read without flags). */
export function screenFor(sources: readonly string[]): SecretScreen {
  const pairs = new Uint8Array(SIZE * SIZE);
  const windows = Math.ceil((SIZE * SIZE * SIZE) / 32);
  // Windows at the start are few, and are kept with those at word starts: the start is one.
  const atStart = new Uint32Array(windows);
  const atWord = new Uint32Array(windows);
  const anywhere = new Uint32Array(windows);
  const tables: Record<Where, Uint32Array> = { start: atStart, word: atWord, anywhere };
  try {
    for (const source of sources) {
      for (const alternative of new Parser(source).parse().flatMap(spread)) {
        if (sequenceLeaves(alternative)) continue;
        const screen = screenOf(alternative, source);
        const table = tables[screen.where];
        const flag = FLAG[screen.where];
        for (const row of screen.rows)
          for (const a of row[0]!)
            for (const b of row[1]!) {
              pairs[a * SIZE + b]! |= flag;
              for (const c of row[2]!) {
                const i = (a * SIZE + b) * SIZE + c;
                table[i >> 5]! |= 1 << (i & 31);
              }
            }
      }
    }
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    return { enabled: false, reason: error.message, mayMatch: () => true, mayMatchCounting: () => true };
  }
  // The pair table by character codes, so that each character costs one lookup: the flags of the
  // windows that start with the pair, or `OUTSIDE` when either character is not in the alphabet.
  const byCode = new Uint8Array(128 * 128).fill(OUTSIDE);
  for (let a = 0; a < SIZE; a++)
    for (let b = 0; b < SIZE; b++) byCode[(ALPHABET.charCodeAt(a) << 7) | ALPHABET.charCodeAt(b)] = pairs[a * SIZE + b]!;
  const hit = (flags: number, t: number): boolean => {
    const word = t >> 5;
    const bit = 1 << (t & 31);
    return (
      ((flags & FLAG.anywhere) !== 0 && (anywhere[word]! & bit) !== 0) ||
      ((flags & FLAG.word) !== 0 && (atWord[word]! & bit) !== 0) ||
      ((flags & FLAG.start) !== 0 && (atStart[word]! & bit) !== 0)
    );
  };
  return {
    enabled: true,
    reason: null,
    mayMatch(text: string): boolean {
      const n = text.length;
      if (n === 0) return false;
      let a = text.charCodeAt(0);
      if (a >= 128) return true;
      if (n === 1) return INDEX[a]! < 0;
      for (let i = 1; i < n; i++) {
        const b = text.charCodeAt(i);
        if (b >= 128) return true;
        const pair = byCode[(a << 7) | b]!;
        // Few pairs start a window: what the window at `a` is looked up for (the value's start, a
        // word start, or anywhere) is read only for those.
        if (pair !== 0) {
          if (pair === OUTSIDE) return true;
          const here = i === 1 ? ALL : ENDS_WORD_CODE[text.charCodeAt(i - 2)] === 1 ? AT_WORD : ANYWHERE;
          if (pair & here && i + 1 < n) {
            const d = text.charCodeAt(i + 1);
            const z = d < 128 ? INDEX[d]! : -1;
            if (z < 0) return true;
            if (hit(pair & here, (INDEX[a]! * SIZE + INDEX[b]!) * SIZE + z)) return true;
          }
        }
        a = b;
      }
      return false;
    },
    // The loop of `mayMatch`, with one count per character.
    mayMatchCounting(text: string, classes: Uint8Array, counts: Int32Array, at: number): boolean {
      const n = text.length;
      if (n === 0) return false;
      let a = text.charCodeAt(0);
      if (a >= 128) return true;
      counts[at + classes[a]!]!++;
      if (n === 1) return INDEX[a]! < 0;
      for (let i = 1; i < n; i++) {
        const b = text.charCodeAt(i);
        if (b >= 128) return true;
        counts[at + classes[b]!]!++;
        const pair = byCode[(a << 7) | b]!;
        if (pair !== 0) {
          if (pair === OUTSIDE) return true;
          const here = i === 1 ? ALL : ENDS_WORD_CODE[text.charCodeAt(i - 2)] === 1 ? AT_WORD : ANYWHERE;
          if (pair & here && i + 1 < n) {
            const d = text.charCodeAt(i + 1);
            const z = d < 128 ? INDEX[d]! : -1;
            if (z < 0) return true;
            if (hit(pair & here, (INDEX[a]! * SIZE + INDEX[b]!) * SIZE + z)) return true;
          }
        }
        a = b;
      }
      return false;
    },
  };
}
