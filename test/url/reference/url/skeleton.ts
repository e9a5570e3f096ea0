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

/** Chromium's diacritic remover for Latin/Greek/Cyrillic labels (`éxample` reads as `example`), plus stroke letters. */
export function removeDiacritics(label: string): string {
  if (!LGC_LABEL.test(label)) return label;
  return label
    .normalize('NFD')
    .replace(NONSPACING, '')
    .normalize('NFC')
    .replace(STROKE_RE, (ch) => STROKES.get(ch)!);
}

function variants(label: string): string[] {
  const out = [label];
  if (label.length > MAX_LABEL_FOR_VARIANTS) return out;
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

function skeletonOf(text: string): string {
  // The Chromium and small-capital maps concern few characters: one regex pass each finds them,
  // instead of a map lookup and a copy per character.
  const mapped = text.replace(EXTRA_PATTERN, (ch) => EXTRA.get(ch)!).normalize('NFD');
  // Each code point through the confusables map, copying the unmapped runs whole.
  let out = '';
  let copied = 0;
  for (let i = 0; i < mapped.length; ) {
    const cp = mapped.codePointAt(i)!;
    const next = i + (cp > 0xffff ? 2 : 1);
    const to = CONFUSABLES.get(cp);
    if (to !== undefined) {
      out += mapped.slice(copied, i) + to;
      copied = next;
    }
    i = next;
  }
  out += mapped.slice(copied);
  return foldAscii(
    out
      .normalize('NFD')
      .toLowerCase()
      .replace(SMALL_CAPITALS_PATTERN, (ch) => SMALL_CAPITALS.get(ch)!),
  );
}

/**
 * The look-alike keys of one label (lower case, any script): one key for a plain ASCII label,
 * a few for labels with characters that look like several things.
 */
export function labelKeys(label: string): string[] {
  if (ASCII.test(label)) return [foldAscii(label)];
  const bases = new Set([removeDiacritics(label), label]);
  const keys = new Set<string>();
  for (const base of bases) for (const variant of variants(base)) keys.add(skeletonOf(variant));
  return [...keys];
}

/**
 * The single most likely key of a label: the first of `labelKeys` (the skeleton of the label
 * without diacritics, before any multi-reading variant), without computing the others.
 */
export function labelKey(label: string): string {
  if (ASCII.test(label)) return foldAscii(label);
  return skeletonOf(removeDiacritics(label));
}
