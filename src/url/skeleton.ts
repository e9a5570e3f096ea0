/**
 * Look-alike keys for host labels: the UTS #39 skeleton, with Chromium's additions, folded so
 * that ASCII typo tricks collapse too. Two labels that share a key look the same to a reader.
 *
 * The confusables data is `unhomoglyph`'s data.json, generated from Unicode's confusables.txt
 * **version 13.0.0** (2020); newer confusables are not in it. `test/url/skeleton.test.ts` pins
 * the package version and a few mappings so an update is a deliberate change.
 */
import confusables from 'unhomoglyph/data.json' with { type: 'json' };

const CONFUSABLES: ReadonlyMap<number, string> = new Map(
  Object.entries(confusables as Record<string, string>).map(([from, to]) => [from.codePointAt(0)!, to]),
);

// Chromium's extra confusable map (skeleton_generator.cc), applied before the ICU skeleton: Latin
// look-alikes that confusables.txt does not list, digit look-alikes and dash look-alikes.
const EXTRA_RULES: readonly (readonly [string, string])[] = [
  ['æӕ', 'ae'],
  ['ϼҏ', 'p'],
  ['ħнћңҥӈӊԋԧԩ', 'h'],
  ['ĸκкқҝҟҡӄԟ', 'k'],
  ['ŋпԥกח', 'n'],
  ['ŧтҭԏ七丅丆丁', 't'],
  ['ƅьҍвß', 'b'],
  ['ωшщพฟພຟ', 'w'],
  ['мӎ', 'm'],
  ['єҽҿၔ', 'e'],
  ['ґ', 'r'],
  ['ғӻ', 'f'],
  ['ҫင', 'c'],
  ['ұ丫', 'y'],
  ['χҳӽӿ乂', 'x'],
  ['ԃძ', 'd'],
  ['ԍဌ', 'g'],
  ['ടรຣຮ', 's'],
  ['၂', 'j'],
  ['०০੦૦ଠ୦೦စ', 'o'],
  ['৭੧૧', 'q'],
  ['บບ', 'u'],
  ['θ', '0'],
  ['२২੨૨೩೭շ', '2'],
  ['зҙӡउওਤ੩૩౩ဒვპੜკ', '3'],
  ['੫丩ㄐ', '4'],
  ['ճ', '6'],
  ['৪੪୫', '8'],
  ['૭୨౨', '9'],
  ['—一―⸺⸻', '-'],
];
const EXTRA: ReadonlyMap<string, string> = new Map(EXTRA_RULES.flatMap(([chars, to]) => Array.from(chars, (ch) => [ch, to] as const)));

// Characters that look like more than one thing (Chromium's supplemental skeletons, plus its
// extra `ӏ → l` skeleton next to confusables.txt's `ӏ → i`).
const MULTI: ReadonlyMap<string, readonly string[]> = new Map([
  ['þ', ['b', 'p']],
  ['œ', ['ce', 'oe']],
  ['ł', ['l', 't']],
  ['ӏ', ['l']],
]);
// Any of them: most labels hold none, and one test tells.
const MULTI_CHARACTER = new RegExp(`[${[...MULTI.keys()].join('')}]`);
const MAX_VARIANTS = 8;
const MAX_LABEL_FOR_VARIANTS = 32;

const LGC_LABEL = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}0-9._\-\u0300-\u0339]*$/u;
const NONSPACING = /\p{Mn}/gu;
const ASCII = /^[\x00-\x7f]*$/;

/** Where `foldAscii` first changes `text` at or after `from` (`0`, `1`, `rn`, `vv`), or -1. */
function nextFold(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x30 || c === 0x31) return i;
    if ((c === 0x72 || c === 0x76) && i + 1 < text.length && text.charCodeAt(i + 1) === (c === 0x72 ? 0x6e : 0x76)) return i;
  }
  return -1;
}

/**
 * The ASCII typo fold applied on top of every skeleton: digits that read as letters and letter
 * pairs that read as one letter (`paypa1`, `g00gle`, `rnicrosoft`, `vvikipedia`). Input is lower-case.
 *
 * One left-to-right pass, the same as replacing `0`, `1`, `rn` and `vv` in turn (none of the
 * replacements makes or breaks another's pattern); most labels have none and are returned as is.
 */
export function foldAscii(text: string): string {
  let at = nextFold(text, 0);
  if (at < 0) return text;
  let out = '';
  let copied = 0;
  while (at >= 0) {
    out += text.slice(copied, at);
    const c = text.charCodeAt(at);
    out += c === 0x30 ? 'o' : c === 0x31 ? 'l' : c === 0x72 ? 'm' : 'w';
    copied = c === 0x30 || c === 0x31 ? at + 1 : at + 2;
    at = nextFold(text, copied);
  }
  return out + text.slice(copied);
}

// Letters with a stroke or bar do not decompose under NFD; Chromium maps ł, ø and đ by hand and
// the other stroke letters read as their base letter just as well (`ǥithub`).
const STROKES: ReadonlyMap<string, string> = new Map([
  ['ł', 'l'],
  ['ø', 'o'],
  ['đ', 'd'],
  ['ǥ', 'g'],
  ['ƀ', 'b'],
  ['ɨ', 'i'],
  ['ɉ', 'j'],
  ['ƚ', 'l'],
  ['ɍ', 'r'],
  ['ŧ', 't'],
  ['ƶ', 'z'],
  ['ɇ', 'e'],
  ['ȼ', 'c'],
  ['ɏ', 'y'],
  ['ᵽ', 'p'],
  ['ꝁ', 'k'],
  ['ħ', 'h'],
  ['ꞓ', 'e'],
  ['ᵻ', 'i'],
  ['ʉ', 'u'],
]);
const STROKE_RE = new RegExp(`[${[...STROKES.keys()].join('')}]`, 'gu');

// Small capitals (the prototypes confusables.txt gives for Greek τ, Cyrillic м, в, н, ...) read as
// lower-case Latin letters in a host name.
const SMALL_CAPITALS: ReadonlyMap<string, string> = new Map(
  Array.from('ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ', (ch, i) => [ch, 'abcdefghijklmnoprstuvwyz'[i]!] as const),
);

/** True when the code point at `at` of a decomposed string has canonical combining class 0. */
function starterAt(decomposed: string, at: number): boolean {
  const ch = String.fromCodePoint(decomposed.codePointAt(at)!);
  // Canonical ordering swaps two adjacent marks when the first has the higher nonzero class:
  // U+0345 (class 240, the highest) before it moves any class below 240 in front, and it moves
  // in front of U+0334 (class 1) when its class is above 1. Together: any nonzero class.
  return `a\u0345${ch}`.normalize('NFD') === `a\u0345${ch}` && `a${ch}\u0334`.normalize('NFD') === `a${ch}\u0334`;
}

// What `removeDiacritics` leaves of one BMP code point of a Latin, Greek or Cyrillic label: its
// NFD without the marks, a stroke letter read as its base letter. An index (plus one, 0: not
// known yet) into the forms seen. What is left of such a code point never reorders and never
// composes with its neighbours (`test/url/skeleton.test.ts` checks that over all of Unicode), so
// a label's form is the concatenation of its code points' and the NFC of the whole changes nothing.
const BMP_BARE = new Uint32Array(0x10000);
const BARE: string[] = [];

function bareOf(cp: number): string {
  const index = BMP_BARE[cp]!;
  if (index !== 0) return BARE[index - 1]!;
  const bare = removeDiacriticsSteps(String.fromCharCode(cp));
  BMP_BARE[cp] = BARE.push(bare);
  return bare;
}

/** `removeDiacritics` step by step over the whole label. */
function removeDiacriticsSteps(label: string): string {
  return label
    .normalize('NFD')
    .replace(NONSPACING, '')
    .normalize('NFC')
    .replace(STROKE_RE, (ch) => STROKES.get(ch)!);
}

/** Chromium's diacritic remover for Latin/Greek/Cyrillic labels (`éxample` reads as `example`), plus stroke letters. */
export function removeDiacritics(label: string): string {
  if (!LGC_LABEL.test(label)) return label;
  let out = '';
  let changed = false;
  for (let i = 0; i < label.length; i++) {
    const cp = label.charCodeAt(i);
    // Half of a code point outside the table: the label takes the steps.
    if (cp >= 0xd800 && cp < 0xe000) return removeDiacriticsSteps(label);
    const bare = bareOf(cp);
    if (bare.length !== 1 || bare.charCodeAt(0) !== cp) changed = true;
    out += bare;
  }
  return changed ? out : label;
}

function variants(label: string): string[] {
  const out = [label];
  if (label.length > MAX_LABEL_FOR_VARIANTS || !MULTI_CHARACTER.test(label)) return out;
  for (const ch of label) {
    const alternatives = MULTI.get(ch);
    if (alternatives === undefined) continue;
    const current = out.slice();
    for (const base of current) {
      for (const alt of alternatives) {
        if (out.length >= MAX_VARIANTS) return out;
        out.push(base.replaceAll(ch, alt));
      }
    }
  }
  return out;
}

/** A regex matching any key of `map` (each one code point), for `replace`. */
function keyPattern(map: ReadonlyMap<string, string>): RegExp {
  return new RegExp(`[${Array.from(map.keys(), (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`).join('')}]`, 'gu');
}

const EXTRA_PATTERN = keyPattern(EXTRA);
const SMALL_CAPITALS_PATTERN = keyPattern(SMALL_CAPITALS);

/** `text` through Chromium's extra map, then NFD: the first half of the skeleton. */
function extraMapped(text: string): string {
  // The Chromium map concerns few characters: one regex pass finds them, instead of a map
  // lookup and a copy per character.
  return text.replace(EXTRA_PATTERN, (ch) => EXTRA.get(ch)!).normalize('NFD');
}

/** Each code point of `text` through the confusables map, copying the unmapped runs whole. */
function confusablesMapped(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const next = i + (cp > 0xffff ? 2 : 1);
    const to = CONFUSABLES.get(cp);
    if (to !== undefined) {
      out += text.slice(copied, i) + to;
      copied = next;
    }
    i = next;
  }
  return out + text.slice(copied);
}

/** The mapped, decomposed text in lower case with small capitals read as letters: the second half. */
function lowerCased(decomposed: string): string {
  return decomposed.toLowerCase().replace(SMALL_CAPITALS_PATTERN, (ch) => SMALL_CAPITALS.get(ch)!);
}

/** The skeleton of `text` (UTS #39 with Chromium's maps) before the ASCII fold, step by step over the whole text. */
function skeletonSteps(text: string): string {
  return lowerCased(confusablesMapped(extraMapped(text)).normalize('NFD'));
}

// What one code point contributes to a skeleton, when a text's skeleton (before the ASCII fold)
// is the concatenation of its code points' own. Every step maps code point by code point except
// two: NFD reorders a run of combining marks (so a boundary between two pieces is safe when one
// side of it is a starter), and the lower case of a capital sigma depends on its neighbours.
// A piece records whether its decomposed forms, after the extra map (`FIRST_*`) and after the
// confusables map (`SECOND_*`), start or end with a mark.
const FIRST_STARTS_WITH_MARK = 1;
const FIRST_ENDS_WITH_MARK = 2;
const SECOND_STARTS_WITH_MARK = 4;
const SECOND_ENDS_WITH_MARK = 8;
const NOT_A_PIECE = 16;

interface Piece {
  readonly text: string;
  readonly marks: number;
}

const NO_PIECE: Piece = Object.freeze({ text: '', marks: NOT_A_PIECE });

function edgeMarks(decomposed: string, starts: number, ends: number): number {
  const last = decomposed.length - (decomposed.length > 1 && decomposed.codePointAt(decomposed.length - 2)! > 0xffff ? 2 : 1);
  return (starterAt(decomposed, 0) ? 0 : starts) | (starterAt(decomposed, last) ? 0 : ends);
}

function pieceOf(cp: number): Piece {
  const first = extraMapped(String.fromCodePoint(cp));
  const second = confusablesMapped(first).normalize('NFD');
  if (first === '' || second === '' || second.includes('\u03a3')) return NO_PIECE;
  const marks =
    edgeMarks(first, FIRST_STARTS_WITH_MARK, FIRST_ENDS_WITH_MARK) | edgeMarks(second, SECOND_STARTS_WITH_MARK, SECOND_ENDS_WITH_MARK);
  return { text: lowerCased(second), marks };
}

// Memoised per code point, like the script tables: a BMP code point's piece is an index (plus
// one, 0: not known yet) into the pieces seen; the rest of Unicode goes to a bounded map.
const BMP_PIECE = new Uint32Array(0x10000);
const PIECES: Piece[] = [];
const ASTRAL_PIECES = new Map<number, Piece>();

function pieceAt(cp: number): Piece {
  if (cp < 0x10000) {
    const index = BMP_PIECE[cp]!;
    if (index !== 0) return PIECES[index - 1]!;
    const piece = pieceOf(cp);
    BMP_PIECE[cp] = PIECES.push(piece);
    return piece;
  }
  let piece = ASTRAL_PIECES.get(cp);
  if (piece === undefined) {
    piece = pieceOf(cp);
    if (ASTRAL_PIECES.size < 65536) ASTRAL_PIECES.set(cp, piece);
  }
  return piece;
}

function skeletonOf(text: string): string {
  // Piece by piece while no two marks meet at a boundary (NFD could reorder them) and no piece
  // holds a capital sigma; otherwise the steps run over the whole text.
  let out = '';
  let previous = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const piece = pieceAt(cp);
    const marks = piece.marks;
    if (
      marks & NOT_A_PIECE ||
      (marks & FIRST_STARTS_WITH_MARK && previous & FIRST_ENDS_WITH_MARK) ||
      (marks & SECOND_STARTS_WITH_MARK && previous & SECOND_ENDS_WITH_MARK)
    )
      return foldAscii(skeletonSteps(text));
    out += piece.text;
    previous = marks;
    i += cp > 0xffff ? 2 : 1;
  }
  return foldAscii(out);
}

/**
 * The look-alike keys of one label (lower case, any script): one key for a plain ASCII label,
 * a few for labels with characters that look like several things.
 */
export function labelKeys(label: string): string[] {
  if (ASCII.test(label)) return [foldAscii(label)];
  const bare = removeDiacritics(label);
  // The keys in the order first found, each once (a list: there are one to a few).
  const keys: string[] = [];
  for (const base of bare === label ? [label] : [bare, label]) {
    for (const variant of variants(base)) {
      const key = skeletonOf(variant);
      if (!keys.includes(key)) keys.push(key);
    }
  }
  return keys;
}

/**
 * The single most likely key of a label: the first of `labelKeys` (the skeleton of the label
 * without diacritics, before any multi-reading variant), without computing the others.
 */
export function labelKey(label: string): string {
  if (ASCII.test(label)) return foldAscii(label);
  return skeletonOf(removeDiacritics(label));
}
