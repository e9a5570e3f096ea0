/**
 * Whether an internationalised label is safe to show in Unicode: Chromium's
 * `IDNSpoofChecker::SafeToDisplayAsUnicode` rules (UTS #39 "highly restrictive" plus its own
 * tables), re-implemented over the JS engine's Unicode properties. A label that fails is shown in
 * Punycode with a warning; it blocks only when it also resembles a protected domain
 * (`lookalike.ts`).
 *
 * Known approximation: without `IdentifierStatus.txt` the allowed character set is the union of
 * the Recommended scripts (with hand-made Latin/Greek/Cyrillic/Hangul ranges) minus Chromium's
 * removals, so a few Restricted characters inside Recommended scripts count as allowed.
 */
import { UrlFinding, type UrlFindingCode } from './codes.js';
import { charScripts, CJK_GROUPS, CYRILLIC, GREEK, LATIN, realScripts, scriptBit, scriptNames, type ScriptName } from './scripts.js';

export interface LabelProblem {
  readonly code: UrlFindingCode;
  /** What is wrong, in words (no code points that could render as controls). */
  readonly reason: string;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

function inRanges(cp: number, ranges: readonly (readonly [number, number])[]): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

// Chromium removes these from the UTS #39 allowed set (idn_spoof_checker.cc, SetAllowedUnicodeSet).
const CHROMIUM_REMOVED: readonly (readonly [number, number])[] = [
  [0x0138, 0x0138],
  [0x01cd, 0x01dc],
  [0x02bb, 0x02bc],
  [0x02ec, 0x02ec],
  [0x0338, 0x0338],
  [0x058a, 0x058a],
  [0x1c80, 0x1c8f],
  [0x1e00, 0x1e9b],
  [0x1f00, 0x1fff],
  [0x2010, 0x2010],
  [0x2019, 0x2019],
  [0x2027, 0x2027],
  [0x30a0, 0x30a0],
  [0xa640, 0xa69f],
  [0xa720, 0xa7ff],
];

// Lower-case Latin letters in the identifier profile: Latin-1, Latin Extended-A, the Extended-B
// and IPA letters of living orthographies (Vietnamese, Romanian, Sami, African alphabets), and the
// Vietnamese block of Latin Extended Additional. Everything else Latin is shown in Punycode.
const LATIN_ALLOWED: readonly (readonly [number, number])[] = [
  [0x61, 0x7a],
  [0xdf, 0xf6],
  [0xf8, 0xff],
  [0x0100, 0x0137],
  [0x0139, 0x0148],
  [0x014a, 0x017e],
  [0x01a1, 0x01a1],
  [0x01b0, 0x01b0],
  [0x01e7, 0x01e7],
  [0x01e9, 0x01e9],
  [0x01eb, 0x01eb],
  [0x01ef, 0x01ef],
  [0x01f5, 0x01f5],
  [0x01f9, 0x01f9],
  [0x01fb, 0x01fb],
  [0x01fd, 0x01fd],
  [0x01ff, 0x01ff],
  [0x0219, 0x0219],
  [0x021b, 0x021b],
  [0x021f, 0x021f],
  [0x0253, 0x0254],
  [0x0257, 0x0257],
  [0x0259, 0x0259],
  [0x025b, 0x025b],
  [0x0263, 0x0263],
  [0x0268, 0x0268],
  [0x0272, 0x0272],
  [0x0289, 0x0289],
  [0x028b, 0x028b],
  [0x0292, 0x0292],
  [0x1ea0, 0x1ef9],
];
const GREEK_ALLOWED: readonly (readonly [number, number])[] = [
  [0x0390, 0x0390],
  [0x03ac, 0x03ce],
];
const CYRILLIC_ALLOWED: readonly (readonly [number, number])[] = [
  [0x0430, 0x045f],
  [0x0461, 0x0481],
  [0x048b, 0x04ff],
  [0x0500, 0x052f],
];
const HANGUL_ALLOWED: readonly (readonly [number, number])[] = [[0xac00, 0xd7a3]];
// Punctuation that identifiers may hold: middle dot (judged by the .cat rule), Katakana middle
// dot, Hebrew geresh/gershayim, Tibetan tsheg. Ideographic number zero is Nl but Han.
const PUNCTUATION_ALLOWED = new Set([0x2d, 0x5f, 0xb7, 0x30fb, 0x05f3, 0x05f4, 0x0f0b, 0x3007]);

const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const DECIMAL_DIGIT = /\p{Nd}/u;
const NONSPACING_MARK = /\p{Mn}/u;

// The verdict depends on the code point alone and costs several Unicode property tests: memoised
// like `charScripts`, since hosts of one language repeat the same few hundred characters. A BMP
// code point's verdict sits in a table (0: not known yet, 1: not allowed, 2: allowed), which reads
// faster than a map; the rest of Unicode goes to a bounded map.
const BMP_ALLOWED = new Uint8Array(0x10000);
const ALLOWED_MEMO = new Map<number, boolean>();

function allowedCharacter(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || cp === 0x2d || cp === 0x5f;
  if (cp < 0x10000) {
    const known = BMP_ALLOWED[cp]!;
    if (known !== 0) return known === 2;
    const allowed = allowedNonAscii(cp, String.fromCodePoint(cp));
    BMP_ALLOWED[cp] = allowed ? 2 : 1;
    return allowed;
  }
  const known = ALLOWED_MEMO.get(cp);
  if (known !== undefined) return known;
  const allowed = allowedNonAscii(cp, String.fromCodePoint(cp));
  if (ALLOWED_MEMO.size < 65536) ALLOWED_MEMO.set(cp, allowed);
  return allowed;
}

function allowedNonAscii(cp: number, ch: string): boolean {
  if (inRanges(cp, CHROMIUM_REMOVED)) return false;
  if (PUNCTUATION_ALLOWED.has(cp)) return true;
  const scripts = charScripts(cp);
  if (DECIMAL_DIGIT.test(ch)) return !scripts.excludedScript;
  if (!LETTER_OR_MARK.test(ch)) return false;
  if (scripts.excludedScript) return false;
  if (scripts.common) return NONSPACING_MARK.test(ch) || ch === '\u30fc' || ch === '\u3005';
  const real = realScripts(scripts.scripts);
  if (real === LATIN) return inRanges(cp, LATIN_ALLOWED);
  if (real === GREEK) return inRanges(cp, GREEK_ALLOWED);
  if (real === CYRILLIC) return inRanges(cp, CYRILLIC_ALLOWED);
  if (real === scriptBit('Hangul')) return inRanges(cp, HANGUL_ALLOWED);
  return true;
}

interface WholeScriptRule {
  readonly script: ScriptName;
  readonly tlds: ReadonlySet<string>;
  readonly scriptLetter: RegExp;
  /** A letter of the script that does not look Latin: one test of the label instead of one per character. */
  readonly otherLetter: RegExp;
}

function wsc(script: ScriptName, letters: string, tlds: readonly string[]): WholeScriptRule {
  return {
    script,
    tlds: new Set(tlds),
    scriptLetter: new RegExp(`(?=\\p{L})\\p{Script_Extensions=${script}}`, 'u'),
    otherLetter: new RegExp(`(?![${letters}])(?=\\p{L})\\p{Script_Extensions=${script}}`, 'u'),
  };
}

// Chromium's whole-script-confusable table (idn_spoof_checker.cc): letters of each script that
// look Latin, and the TLDs where an all-look-alike label is normal. The Thai row is Chromium's
// Linux/ChromeOS list (the longer one: fonts there make more Thai letters look Latin).
const WHOLE_SCRIPT_RULES: readonly WholeScriptRule[] = [
  wsc('Armenian', 'ագզէլհյոսւօՙ', ['am']),
  wsc('Cyrillic', 'аысԁеԍһіюкјӏорԗԛѕԝхуъьҽпгѵѡ', ['bg', 'by', 'kz', 'pyc', 'ru', 'su', 'ua', 'uz']),
  wsc('Ethiopic', 'ሀሠሰስበነተከዐዕዘጠፐꬅ', ['er', 'et']),
  wsc('Georgian', 'იოყძხჽჿ', ['ge']),
  wsc('Greek', 'αικνρυωηοτ', ['gr']),
  wsc('Hebrew', 'דוחיןסװײ׳ﬦ', ['il']),
  wsc('Bengali', '০৭', []),
  wsc('Devanagari', 'ऽ०ॱ', []),
  wsc('Gujarati', 'ડટ૦૧', []),
  wsc('Gurmukhi', '੦੧', []),
  wsc('Kannada', 'ಽ೦೧', []),
  wsc('Malayalam', 'ടഠധനറ൦', []),
  wsc('Oriya', 'ଠ୦୮', []),
  wsc('Tamil', 'டப௦', []),
  wsc('Telugu', '౦౧', []),
  wsc('Myanmar', 'ခဂငထပဝ၀၂ၔၜ\u1090\u1091\u1095\u1096\u1097', ['mm']),
  wsc('Thai', 'ทนบพรหเแ๐ดลปฟม', ['th']),
];
// Pairs in table order, iterated per label (iterating a Map allocates an entry per step).
const WSC_BY_SCRIPT: readonly (readonly [number, WholeScriptRule])[] = WHOLE_SCRIPT_RULES.map((r) => [scriptBit(r.script), r] as const);
// Real Cyrillic words made only of Latin-looking letters (Chromium's allow list).
const CYRILLIC_WORDS = new Set(['секс', 'как', 'коса', 'курс', 'парк', 'такий', 'укроп', 'сахарок', 'покраска']);

const DIGIT_LOOKALIKES: ReadonlySet<number> = new Set(Array.from('θ२২੨૨೩೭շзҙӡउওਤ੩૩౩ဒვპੜკ੫丩ㄐճ৪੪୫૭୨౨', (ch) => ch.codePointAt(0)!));
const KANA_EXCEPTIONS = /[\u3078-\u307a\u30d8-\u30da\u30fb-\u30fe]/u;
const COMBINING_DIACRITIC = /[\u0300-\u0339]/u;
const LGC_AND_ASCII = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}0-9._\-\u0300-\u0339]*$/u;
const NON_ASCII_LATIN = /(?![a-z])\p{Script=Latin}/u;

const KHH = '\\p{scx=Katakana}\\p{scx=Hiragana}\\p{scx=Han}';
const CJK_DASHES = '一ㄧ丨乛七丅十〇ㄒㄚㄟㄨㄩㄈㆺㆳ工ㆲ讠丁';
// Chromium's dangerous patterns (idn_spoof_checker.cc), as JS regexes over one label.
const DANGEROUS_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [
    new RegExp(`[^${KHH}][\\u30ce\\u30f3\\u30bd\\u30be\\u4e36\\u4e40\\u4e41\\u4e3f][^${KHH}]`, 'u'),
    'a Kana or CJK character that looks like a slash between non-Japanese characters',
  ],
  [/^[\u30fd\u30fe]|[^\p{scx=Katakana}][\u30fd\u30fe]/u, 'a Katakana iteration mark not after Katakana'],
  [/^\p{scx=Katakana}+[\u3078-\u307a]\p{scx=Katakana}+$/u, 'a Hiragana he/be/pe inside a Katakana label'],
  [/^\p{scx=Hiragana}+[\u30d8-\u30da]\p{scx=Hiragana}+$/u, 'a Katakana he/be/pe inside a Hiragana label'],
  [/^\u30fc|[^\p{scx=Katakana}\p{scx=Hiragana}]\u30fc/u, 'a prolonged sound mark not after Kana'],
  [/[a-z]\u30fb|\u30fb[a-z]/u, 'a Katakana middle dot next to a Latin letter'],
  [
    new RegExp(`[^${KHH}\\p{scx=Bopomofo}][${CJK_DASHES}]|[${CJK_DASHES}][^${KHH}\\p{scx=Bopomofo}]`, 'u'),
    'a CJK character that looks like a dash or a Latin letter next to a non-CJK character',
  ],
  [
    /[^\p{scx=Latin}\p{scx=Greek}\p{scx=Cyrillic}][\u0300-\u0339]/u,
    'a combining diacritic after a character that is not Latin, Greek or Cyrillic',
  ],
  [/[\u0131\u0237]\p{Mn}/u, 'a combining mark on a dotless i or j'],
  [/[\u3099\u309a]/u, 'a combining Kana voiced sound mark'],
  [/[ijl]\u0307/u, 'a combining dot above on i, j or l'],
];

/** The code points of a label, as its string iterator yields them (a lone surrogate is its own). */
function codePointsOf(label: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < label.length; ) {
    const cp = label.codePointAt(i)!;
    out.push(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return out;
}

function hasDigitLookalike(cps: readonly number[]): boolean {
  let lookalike = false;
  for (const cp of cps) {
    if (DIGIT_LOOKALIKES.has(cp)) lookalike = true;
    else if (!(cp >= 0x30 && cp <= 0x39) && cp !== 0x2d) return false;
  }
  return lookalike;
}

/** The zero of the numbering system a decimal digit belongs to (digits come in runs of ten). */
function digitZero(cp: number): number {
  let start = cp;
  while (cp - start < 64 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return start + Math.floor((cp - start) / 10) * 10;
}

// A decimal digit outside 0-9: without one, every digit of a label is ASCII and of one system.
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/u;

function mixesNumberingSystems(label: string, cps: readonly number[]): boolean {
  if (!NON_ASCII_DIGIT.test(label)) return false;
  let zero = -1;
  for (const cp of cps) {
    // The ASCII decimal digits are 0-9 only; other code points need the property test.
    if (cp < 0x80 ? cp < 0x30 || cp > 0x39 : !DECIMAL_DIGIT.test(String.fromCodePoint(cp))) continue;
    const z = cp <= 0x39 ? 0x30 : digitZero(cp);
    if (zero === -1) zero = z;
    else if (zero !== z) return true;
  }
  return false;
}

function tldRuleProblem(label: string, length: number, tld: string): LabelProblem | null {
  if (length > 1 && /[\u00fe\u00f0]/u.test(label) && tld !== 'is' && tld !== 'fo') {
    return { code: UrlFinding.idnTldCharacter, reason: 'thorn or eth outside .is and .fo' };
  }
  if (label.includes('\u0259') && tld !== 'az') return { code: UrlFinding.idnTldCharacter, reason: 'schwa outside .az' };
  if (label.includes('\u00b7')) {
    const ok = tld === 'cat' && /^(?:[^\u00b7]|(?<=l)\u00b7(?=l))*$/u.test(label);
    if (!ok) return { code: UrlFinding.idnTldCharacter, reason: 'a middle dot outside .cat "l·l"' };
  }
  return null;
}

function wholeScriptProblem(label: string, scriptBits: number, tld: string): LabelProblem | null {
  const real = realScripts(scriptBits);
  for (const [bit, rule] of WSC_BY_SCRIPT) {
    if ((real & bit) === 0) continue;
    // The rule applies when the label has letters of the script and all of them look Latin.
    if (!rule.scriptLetter.test(label) || rule.otherLetter.test(label)) continue;
    if (rule.tlds.has(tld) || rule.scriptLetter.test(tld)) continue;
    if (rule.script === 'Cyrillic' && CYRILLIC_WORDS.has(label)) continue;
    return { code: UrlFinding.idnWholeScriptConfusable, reason: `every ${rule.script} letter in it looks like a Latin letter` };
  }
  return null;
}

/**
 * Judges one Unicode label (NFC, lower case) under its TLD (Unicode form). Returns null when the
 * label is safe to show in Unicode, otherwise the first rule it breaks.
 */
export function judgeLabel(label: string, tld: string): LabelProblem | null {
  if (ASCII_ONLY.test(label)) return null;
  const cps = codePointsOf(label);

  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    if (cp === 0x200c || cp === 0x200d) return { code: UrlFinding.idnDeviationCharacter, reason: 'a zero-width joiner or non-joiner' };
    if (!allowedCharacter(cp)) {
      return {
        code: UrlFinding.idnDisallowedCharacter,
        reason: `U+${cp.toString(16).toUpperCase().padStart(4, '0')} is not allowed in a host name shown to users`,
      };
    }
    if (i > 0 && cp === cps[i - 1] && NONSPACING_MARK.test(String.fromCodePoint(cp)))
      return { code: UrlFinding.idnCombiningMark, reason: 'a repeated combining mark' };
  }

  const tldProblem = tldRuleProblem(label, cps.length, tld);
  if (tldProblem !== null) return tldProblem;

  // Resolved script set (UTS #39 §5.1) and the "highly restrictive" cover: the non-Latin
  // characters must share one of the CJK groups when Latin is present.
  let resolved = -1;
  let nonLatinResolved = -1;
  let union = 0;
  for (const cp of cps) {
    if (cp < 0x80 && !(cp >= 0x61 && cp <= 0x7a)) continue;
    const info = charScripts(cp);
    if (info.common) continue;
    union |= info.scripts;
    resolved &= info.scripts;
    if (realScripts(info.scripts) !== LATIN) nonLatinResolved &= info.scripts;
  }
  const singleScript = resolved !== 0;
  if (!singleScript) {
    const coveredWithLatin = (nonLatinResolved & CJK_GROUPS) !== 0;
    if (!coveredWithLatin) {
      return { code: UrlFinding.idnMixedScript, reason: `it mixes ${scriptNames(realScripts(union)).join(', ')}` };
    }
  }
  if (mixesNumberingSystems(label, cps))
    return { code: UrlFinding.idnDigitLookalike, reason: 'it mixes digits of different numbering systems' };

  if (singleScript && !KANA_EXCEPTIONS.test(label) && !COMBINING_DIACRITIC.test(label)) {
    const problem = wholeScriptProblem(label, resolved, tld);
    if (problem !== null) return problem;
    if (hasDigitLookalike(cps))
      return { code: UrlFinding.idnDigitLookalike, reason: 'it is made of digits and characters that look like digits' };
    return null;
  }

  if (hasDigitLookalike(cps))
    return { code: UrlFinding.idnDigitLookalike, reason: 'it is made of digits and characters that look like digits' };
  if (!singleScript && NON_ASCII_LATIN.test(label) && !LGC_AND_ASCII.test(label)) {
    return { code: UrlFinding.idnMixedScript, reason: 'a non-ASCII Latin letter mixed with another script' };
  }
  for (const [pattern, reason] of DANGEROUS_PATTERNS) if (pattern.test(label)) return { code: UrlFinding.idnDangerousPattern, reason };
  return null;
}
