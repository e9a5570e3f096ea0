import { describe, expect, it } from 'vitest';
import { UrlFinding } from '../../src/url/codes.js';
import { judgeLabel } from '../../src/url/idn.js';

const code = (label: string, tld: string) => judgeLabel(label, tld)?.code ?? null;

describe('judgeLabel: labels safe to show in Unicode', () => {
  it.each([
    ['münchen', 'de'],
    ['bücher', 'de'],
    ['例え', 'jp'],
    ['пример', 'рф'],
    ['президент', 'рф'],
    ['ουτοπία', 'gr'],
    ['ポケモン', 'com'],
    ['sinónimo', 'es'],
    ['sağlık', 'net'],
    ['straße', 'de'],
    ['playstation攻略', 'jp'],
    ['格安sim比較', 'com'],
    ['укроп', 'org'],
    ['paypal', 'com'],
  ])('%s under .%s', (label, tld) => {
    expect(judgeLabel(label, tld)).toBeNull();
  });
});

describe('judgeLabel: mixed scripts (UTS #39 highly restrictive)', () => {
  it.each([
    ['pаypal', 'com'], // Latin + Cyrillic a
    ['gοοgle', 'com'], // Latin + Greek omicron
    ['αpple', 'com'],
    ['ดูการ์ตูนออนไลน์ฟรีhd', 'com'], // Thai + Latin
    ['ひらがなhangul한글', 'com'], // Hiragana + Hangul
  ])('%s', (label, tld) => {
    expect(code(label, tld)).toBe(UrlFinding.idnMixedScript);
  });

  it('lets Latin join Han with Kana, Bopomofo or Hangul', () => {
    expect(judgeLabel('攻略wiki', 'com')).toBeNull();
    expect(judgeLabel('한국abc', 'kr')).toBeNull();
  });

  it('rejects a non-ASCII Latin letter mixed with Han', () => {
    expect(code('é東京', 'jp')).toBe(UrlFinding.idnMixedScript);
  });
});

describe('judgeLabel: whole-script confusables', () => {
  it('flags an all-look-alike Cyrillic label under a Latin TLD', () => {
    expect(code('ѕсоре', 'com')).toBe(UrlFinding.idnWholeScriptConfusable);
    expect(code('аррӏе', 'com')).toBe(UrlFinding.idnWholeScriptConfusable);
  });

  it('allows it under a Cyrillic TLD or an allowed country TLD', () => {
    expect(judgeLabel('ѕсоре', 'рф')).toBeNull();
    expect(judgeLabel('ѕсоре', 'ru')).toBeNull();
  });

  it("allows the real words on Chromium's list", () => {
    expect(judgeLabel('парк', 'com')).toBeNull();
  });

  it('flags Greek look-alikes outside .gr', () => {
    expect(code('οκτα', 'com')).toBe(UrlFinding.idnWholeScriptConfusable);
    expect(judgeLabel('οκτα', 'gr')).toBeNull();
  });

  it('does not flag a Cyrillic label with letters that have no Latin look-alike', () => {
    expect(judgeLabel('пример', 'com')).toBeNull();
  });
});

describe('judgeLabel: digits, deviations, marks and TLD rules', () => {
  it('flags labels of digits and digit look-alikes', () => {
    expect(code('12з4', 'com')).toBe(UrlFinding.idnDigitLookalike); // Cyrillic ze as 3
  });

  it('flags mixed numbering systems', () => {
    expect(code('abc١٢٣4', 'com')).not.toBeNull();
  });

  it('flags zero-width joiners inside a Punycode label', () => {
    expect(code('a\u200db', 'com')).toBe(UrlFinding.idnDeviationCharacter);
  });

  it('flags a combining mark on a dotless i and a repeated mark', () => {
    expect(code('\u0131\u0307nstagram', 'com')).not.toBeNull();
    expect(code('e\u0301\u0301xample', 'com')).toBe(UrlFinding.idnCombiningMark);
  });

  it('flags i followed by a combining dot above', () => {
    expect(code('i\u0307nstagram', 'com')).toBe(UrlFinding.idnDangerousPattern);
  });

  it('applies the TLD-bound letters', () => {
    expect(code('þorn', 'com')).toBe(UrlFinding.idnTldCharacter);
    expect(judgeLabel('þorn', 'is')).toBeNull();
    expect(code('ə', 'com')).toBe(UrlFinding.idnTldCharacter);
    expect(judgeLabel('əli', 'az')).toBeNull();
    expect(judgeLabel('col·legi', 'cat')).toBeNull();
    expect(code('col·legi', 'com')).toBe(UrlFinding.idnTldCharacter);
    expect(code('a·b', 'cat')).toBe(UrlFinding.idnTldCharacter);
  });

  it('names a character outside the Basic Multilingual Plane by its code point, not its surrogates', () => {
    const problem = judgeLabel('\u{1d4c5}aypal', 'com'); // mathematical script p
    expect(problem?.code).toBe(UrlFinding.idnDisallowedCharacter);
    expect(problem?.reason).toContain('U+1D4C5');
    // Asked again, the answer comes from the per-code-point tables and is the same.
    expect(judgeLabel('\u{1d4c5}aypal', 'com')).toEqual(problem);
    expect(judgeLabel('ǥithub', 'com')).toEqual(judgeLabel('ǥithub', 'com'));
    // Han ideographs of Extension B are allowed: read as pairs of surrogates they would not be.
    expect(judgeLabel('中文\u{20000}\u{2a6d6}', 'com')).toBeNull();
  });

  it('flags characters outside the identifier profile', () => {
    expect(code('ǥithub', 'com')).toBe(UrlFinding.idnDisallowedCharacter); // Latin Extended-B g with stroke
    expect(code('ᬩᬮᬶ', 'id')).toBe(UrlFinding.idnDisallowedCharacter); // Balinese: limited use
    expect(code('a♥b', 'com')).toBe(UrlFinding.idnDisallowedCharacter);
    expect(code('ḁpple', 'com')).toBe(UrlFinding.idnDisallowedCharacter); // Latin Extended Additional, removed by Chromium
  });

  it('applies the Kana and CJK dangerous patterns', () => {
    expect(code('aノb', 'com')).toBe(UrlFinding.idnDangerousPattern); // Katakana no as a slash
    expect(code('ーabc', 'jp')).not.toBeNull(); // prolonged sound mark at the start
    expect(code('a一b', 'com')).not.toBeNull(); // CJK one as a dash
  });
});
