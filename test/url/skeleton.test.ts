import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { foldAscii, labelKey, labelKeys, removeDiacritics } from '../../src/url/skeleton.js';

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
