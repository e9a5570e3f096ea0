/**
 * Look-alike keys for host labels: the UTS #39 skeleton, with Chromium's additions, folded so
 * that ASCII typo tricks collapse too. Two labels that share a key look the same to a reader.
 *
 * The confusables data is `unhomoglyph`'s data.json, generated from Unicode's confusables.txt
 * **version 13.0.0** (2020); newer confusables are not in it. `test/url/skeleton.test.ts` pins
 * the package version and a few mappings so an update is a deliberate change.
 */
import confusables from 'unhomoglyph/data.json' with { type: 'json' };

const CONFUSABLES: ReadonlyMap<number, string> = new Map(Object.entries(confusables as Record<string, string>).map(([from, to]) => [from.codePointAt(0)!, to]));

// Chromium's extra confusable map (skeleton_generator.cc), applied before the ICU skeleton: Latin
// look-alikes that confusables.txt does not list, digit look-alikes and dash look-alikes.
const EXTRA_RULES: readonly (readonly [string, string])[] = [
  ['æӕ', 'ae'], ['ϼҏ', 'p'], ['ħнћңҥӈӊԋԧԩ', 'h'], ['ĸκкқҝҟҡӄԟ', 'k'], ['ŋпԥกח', 'n'], ['ŧтҭԏ七丅丆丁', 't'],
  ['ƅьҍвß', 'b'], ['ωшщพฟພຟ', 'w'], ['мӎ', 'm'], ['єҽҿၔ', 'e'], ['ґ', 'r'], ['ғӻ', 'f'], ['ҫင', 'c'], ['ұ丫', 'y'],
  ['χҳӽӿ乂', 'x'], ['ԃძ', 'd'], ['ԍဌ', 'g'], ['ടรຣຮ', 's'], ['၂', 'j'], ['०০੦૦ଠ୦೦စ', 'o'], ['৭੧૧', 'q'], ['บບ', 'u'],
  ['θ', '0'], ['२২੨૨೩೭շ', '2'], ['зҙӡउওਤ੩૩౩ဒვპੜკ', '3'], ['੫丩ㄐ', '4'], ['ճ', '6'], ['৪੪୫', '8'], ['૭୨౨', '9'],
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
const FOLDABLE = /[01]|rn|vv/;

/**
 * The ASCII typo fold applied on top of every skeleton: digits that read as letters and letter
 * pairs that read as one letter (`paypa1`, `g00gle`, `rnicrosoft`, `vvikipedia`). Input is lower-case.
 */
export function foldAscii(text: string): string {
  if (!FOLDABLE.test(text)) return text;
  return text.replace(/0/g, 'o').replace(/1/g, 'l').replace(/rn/g, 'm').replace(/vv/g, 'w');
}

// Letters with a stroke or bar do not decompose under NFD; Chromium maps ł, ø and đ by hand and
// the other stroke letters read as their base letter just as well (`ǥithub`).
const STROKES: ReadonlyMap<string, string> = new Map([
  ['ł', 'l'], ['ø', 'o'], ['đ', 'd'], ['ǥ', 'g'], ['ƀ', 'b'], ['ɨ', 'i'], ['ɉ', 'j'], ['ƚ', 'l'], ['ɍ', 'r'], ['ŧ', 't'], ['ƶ', 'z'],
  ['ɇ', 'e'], ['ȼ', 'c'], ['ɏ', 'y'], ['ᵽ', 'p'], ['ꝁ', 'k'], ['ħ', 'h'], ['ꞓ', 'e'], ['ᵻ', 'i'], ['ʉ', 'u'],
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
  return label.normalize('NFD').replace(NONSPACING, '').normalize('NFC').replace(STROKE_RE, (ch) => STROKES.get(ch)!);
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

function skeletonOf(text: string): string {
  let mapped = '';
  for (const ch of text) mapped += EXTRA.get(ch) ?? ch;
  let out = '';
  for (const ch of mapped.normalize('NFD')) out += CONFUSABLES.get(ch.codePointAt(0)!) ?? ch;
  let folded = '';
  for (const ch of out.normalize('NFD').toLowerCase()) folded += SMALL_CAPITALS.get(ch) ?? ch;
  return foldAscii(folded);
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

/** The single most likely key of a label (the first of `labelKeys`). */
export function labelKey(label: string): string {
  return labelKeys(label)[0]!;
}
