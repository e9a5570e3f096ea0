/**
 * Script_Extensions of a code point over the UAX #31 "Recommended" scripts, as a bit set, using
 * the engine's Unicode data (`\p{Script_Extensions=...}`). Used only on non-ASCII labels, so a
 * memo per code point keeps repeated characters cheap.
 */

/** The Recommended scripts of UAX #31 Table 5 (the scripts UTS #39 lets into identifiers). */
export const RECOMMENDED_SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Khmer',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
] as const;

export type ScriptName = (typeof RECOMMENDED_SCRIPTS)[number];

const BIT = new Map<ScriptName, number>(RECOMMENDED_SCRIPTS.map((name, i) => [name, 1 << i]));

export function scriptBit(name: ScriptName): number {
  return BIT.get(name)!;
}

export const LATIN = scriptBit('Latin');
export const GREEK = scriptBit('Greek');
export const CYRILLIC = scriptBit('Cyrillic');
export const HAN = scriptBit('Han');
export const HIRAGANA = scriptBit('Hiragana');
export const KATAKANA = scriptBit('Katakana');
export const HANGUL = scriptBit('Hangul');
export const BOPOMOFO = scriptBit('Bopomofo');
// UTS #39 augmented script sets: Han counts as Japanese, Korean and Chinese writing; the kana as
// Japanese; Hangul as Korean; Bopomofo as Chinese. Three pseudo-bits after the 29 real ones.
export const JPAN = 1 << 29;
export const KORE = 1 << 30;
export const HANB = 1 << 31;
export const CJK_GROUPS = JPAN | KORE | HANB;

const SCRIPT_TESTS: readonly (readonly [number, RegExp])[] = RECOMMENDED_SCRIPTS.map(
  (name) => [BIT.get(name)!, new RegExp(`\\p{Script_Extensions=${name}}`, 'u')] as const,
);
const COMMON_OR_INHERITED = /[\p{Script_Extensions=Common}\p{Script_Extensions=Inherited}]/u;

export interface CharScripts {
  /** Augmented Script_Extensions bits over the recommended scripts (0 for Common/Inherited). */
  readonly scripts: number;
  /** Script_Extensions is Common or Inherited only (digits, hyphen, combining marks, ...). */
  readonly common: boolean;
  /** Belongs to a script outside the recommended set (Coptic, Runic, Cherokee, ...). */
  readonly excludedScript: boolean;
}

// A BMP code point's answer is an index (plus one, 0: not known yet) into the few distinct
// answers there are, which reads faster than a map; the rest of Unicode goes to a bounded map.
const BMP_INFO = new Uint16Array(0x10000);
const INFOS: CharScripts[] = [];
const memo = new Map<number, CharScripts>();

function augment(bits: number): number {
  let out = bits;
  if (bits & HAN) out |= JPAN | KORE | HANB;
  if (bits & (HIRAGANA | KATAKANA)) out |= JPAN;
  if (bits & HANGUL) out |= KORE;
  if (bits & BOPOMOFO) out |= HANB;
  return out;
}

/** The scripts of one code point (memoised). */
export function charScripts(cp: number): CharScripts {
  if (cp < 0x10000) {
    const index = BMP_INFO[cp]!;
    if (index !== 0) return INFOS[index - 1]!;
    const info = scriptsOf(cp);
    let known = INFOS.findIndex((i) => i.scripts === info.scripts && i.common === info.common && i.excludedScript === info.excludedScript);
    if (known < 0) known = INFOS.push(info) - 1;
    BMP_INFO[cp] = known + 1;
    return INFOS[known]!;
  }
  const known = memo.get(cp);
  if (known !== undefined) return known;
  const info = scriptsOf(cp);
  if (memo.size < 65536) memo.set(cp, info);
  return info;
}

function scriptsOf(cp: number): CharScripts {
  const ch = String.fromCodePoint(cp);
  let bits = 0;
  for (const [bit, re] of SCRIPT_TESTS) if (re.test(ch)) bits |= bit;
  const common = bits === 0 && COMMON_OR_INHERITED.test(ch);
  return { scripts: augment(bits), common, excludedScript: bits === 0 && !common };
}

/** The real (non-pseudo) script bits of a set. */
export function realScripts(bits: number): number {
  return bits & ~CJK_GROUPS;
}

/** The name of the lowest script bit in `bits`, for messages. */
export function scriptNames(bits: number): string[] {
  const names: string[] = [];
  for (const name of RECOMMENDED_SCRIPTS) if (bits & BIT.get(name)!) names.push(name);
  return names;
}
