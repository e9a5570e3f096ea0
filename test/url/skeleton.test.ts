import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldAscii, labelKey, labelKeys, removeDiacritics } from '../../src/url/skeleton.js';
import { runCount } from '../properties/runs.js';
import * as reference from './reference/url/skeleton.js';

const require = createRequire(import.meta.url);

describe('confusables data (unhomoglyph, Unicode confusables.txt 13.0.0)', () => {
  it('is the pinned package version, so a data update is a deliberate change', () => {
    const pkg = require('unhomoglyph/package.json') as { version: string };
    expect(pkg.version).toBe('1.0.6');
  });

  it('holds the mappings the engine relies on', () => {
    const data = require('unhomoglyph/data.json') as Record<string, string>;
    expect(Object.keys(data)).toHaveLength(6311);
    expect(data['а']).toBe('a'); // Cyrillic a
    expect(data['ѕ']).toBe('s'); // Cyrillic dze
    expect(data['ο']).toBe('o'); // Greek omicron
    expect(data['m']).toBe('rn');
    expect(data['0']).toBe('O');
    expect(data['1']).toBe('l');
    // Unicode 13 maps Cyrillic palochka to i; Chromium adds l, and so does the engine.
    expect(data['ӏ']).toBe('i');
  });
});

describe('foldAscii', () => {
  it.each([
    ['paypa1', 'paypal'],
    ['g00gle', 'google'],
    ['rnicrosoft', 'microsoft'],
    ['vvikipedia', 'wikipedia'],
    ['example', 'example'],
  ])('%s folds to %s', (input, folded) => {
    expect(foldAscii(input)).toBe(folded);
  });
});

describe('labelKeys', () => {
  it('gives Cyrillic and Greek homographs the key of the Latin brand', () => {
    expect(labelKeys('pаypal')).toContain('paypal');
    expect(labelKeys('аррӏе')).toContain('apple');
    expect(labelKeys('ѕсоре')).toContain('scope');
    expect(labelKeys('οκτα')).toContain('okta');
  });

  it('gives the same key to an ASCII label and its look-alike spellings', () => {
    expect(labelKey('microsoft')).toBe(labelKey('rnicrosoft'));
    expect(labelKey('paypal')).toBe(labelKey('paypa1'));
  });

  it('removes diacritics from Latin labels only', () => {
    expect(removeDiacritics('pàypal')).toBe('paypal');
    expect(removeDiacritics('ǥithub')).toBe('github');
    expect(removeDiacritics('münchen')).toBe('munchen');
    expect(removeDiacritics('例え')).toBe('例え');
  });

  it('yields every reading of a character that looks like two things', () => {
    const keys = labelKeys('łinkedin');
    expect(keys).toContain('linkedin');
    expect(keys.some((k) => k.startsWith('t'))).toBe(true);
  });

  it('leaves characters without a Latin look-alike as they are', () => {
    expect(labelKey('例え')).toBe('例え');
  });
});

describe('the keys read code point by code point', () => {
  // The skeleton and the diacritic remover map each code point on its own where the whole-text
  // steps (NFD, NFC, lower case) cannot tell the difference; the reference runs the steps.
  const LGC = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}0-9._\-\u0300-\u0339]$/u;
  const MARK = /\p{Mn}/gu;

  /** The label's keys and diacritic-free form, here and in the reference, as one string each. */
  function keys(label: string) {
    const ours = JSON.stringify([labelKeys(label), labelKey(label), removeDiacritics(label)]);
    const theirs = JSON.stringify([reference.labelKeys(label), reference.labelKey(label), reference.removeDiacritics(label)]);
    return { ours, theirs };
  }

  it('leaves of a Latin, Greek or Cyrillic character, its marks removed, only characters that never compose or reorder', () => {
    // Every code point that a composition can add to what precedes it follows the first one in
    // some canonical decomposition.
    const seconds = new Set<string>();
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp < 0xe000) continue;
      const decomposed = Array.from(String.fromCodePoint(cp).normalize('NFD'));
      for (let i = 1; i < decomposed.length; i++) seconds.add(decomposed[i]!);
    }
    const starter = (ch: string) =>
      `a\u0345${ch}`.normalize('NFD') === `a\u0345${ch}` && `a${ch}\u0334`.normalize('NFD') === `a${ch}\u0334`;
    const offending: string[] = [];
    for (let cp = 0; cp < 0x10000; cp++) {
      const ch = String.fromCharCode(cp);
      if (!LGC.test(ch)) continue;
      for (const left of ch.normalize('NFD').replace(MARK, '')) if (seconds.has(left) || !starter(left)) offending.push(ch);
    }
    expect(offending).toEqual([]);
  });

  it('gives every BMP code point, next to letters and marks, the keys the reference gives', { timeout: 30_000 }, () => {
    const differing: string[] = [];
    // Lone surrogates included: a Punycode label can decode to one.
    for (let cp = 0; cp < 0x10000; cp++) {
      const ch = String.fromCharCode(cp);
      for (const label of [`a${ch}\u0301${ch}\u0e39\u0e48`, `\u03a3${ch}`]) {
        const { ours, theirs } = keys(label);
        if (ours !== theirs) differing.push(label);
      }
    }
    expect(differing).toEqual([]);
  });

  it('gives labels of letters, marks in any order, sigmas and look-alikes the keys the reference gives', () => {
    const pool = Array.from(
      'aemnrv01-ΣσςΑάΐаеірСäößåéłøǥﬁ\u0300\u0301\u0307\u0308\u0323\u0327\u0334\u0345\u0e31\u0e38\u0e39\u0e48\u0e49ดูหีไ' +
        '\u0f71\u0f72\u0f73\u0f80ᄀ\u1161\u11a8가ἀᾳ\u3099かアㄱ\u05b0\u05bcש\u0651\u064eب—一०০ӏþœᴀİ\u{1d400}\u{10780}\ud800\udc00',
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pool), { maxLength: 10 }), (chars) => {
        const { ours, theirs } = keys(chars.join(''));
        expect(ours).toBe(theirs);
      }),
      { numRuns: runCount(3000) },
    );
  });
});
