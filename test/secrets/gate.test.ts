/**
 * The secret-scan gate (`src/secrets/gate.ts`) must never change an answer: `findSecret` is held to
 * the scan it replaced (one regex of every rule's source as the pre-check, then the rules in
 * order), on every string of the form and URL fixtures and on generated strings made of the pieces
 * secrets are made of; `compileFirstMatch` on its own is held to testing every pattern in order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONNECTION_FORMATS, KEY_PREFIXES, KNOWN_FORMATS } from '../../src/secrets/data/known-formats.js';
import { compileFirstMatch, ungatedPatterns } from '../../src/secrets/gate.js';
import { findSecret, SECRET_PATTERNS } from '../../src/secrets/patterns.js';
import { propertyParameters, timeoutFor } from '../properties/runs.js';

// The scan as it was before the gate: its rules, its combined pre-check, its loop.
const REFERENCE_RULES: readonly (readonly [string, RegExp])[] = [
  ['private-key-block', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  ['jwe', /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{8,}/],
  ['jwt', /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ...KNOWN_FORMATS.map(([rule, source]) => [rule, new RegExp(source)] as const),
  ...CONNECTION_FORMATS.map(([rule, source]) => [rule, new RegExp(source)] as const),
  ['bearer-token', /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/i],
];
const REFERENCE_ANY = new RegExp(REFERENCE_RULES.map(([, p]) => `(?:${p.source})`).join('|'));

function referenceRule(value: string): string | null {
  if (value.length < 16) return null;
  const text = value.length > 65_536 ? value.slice(0, 65_536) : value;
  if (!REFERENCE_ANY.test(text)) return null;
  for (const [rule, pattern] of REFERENCE_RULES) if (pattern.test(text)) return rule;
  return null;
}

function fixtureStrings(): string[] {
  const out: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) collect([k, v]);
  };
  for (const dir of ['forms', 'urls']) {
    const base = new URL(`../../fixtures/${dir}/`, import.meta.url);
    for (const name of readdirSync(base)) {
      if (!name.endsWith('.jsonl')) continue;
      for (const line of readFileSync(new URL(name, base), 'utf8').split('\n')) if (line.trim() !== '') collect(JSON.parse(line));
    }
  }
  // URL values as the URL check hands them over: decoded query values and path segments.
  for (const s of [...out]) {
    if (!/^https?:\/\//.test(s)) continue;
    try {
      const url = new URL(s);
      for (const [k, v] of url.searchParams) out.push(k, v);
      out.push(...url.pathname.split('/'), decodeURIComponent(url.hash.slice(1)));
    } catch {
      // not a URL after all, or a malformed escape in its fragment
    }
  }
  return out;
}

// The pieces secrets and their look-alikes are made of.
const PIECES = [
  ...KEY_PREFIXES,
  'eyJ',
  'eyJhbGciOiJIUzI1NiJ9',
  '.',
  '..',
  '-',
  '_',
  '=',
  ':',
  '://',
  '@',
  '/',
  ';',
  ' ',
  '\n',
  '\u00a0',
  '\u2028',
  'é',
  '😀',
  '"type": "service_account"',
  '"private_key"',
  '-----BEGIN ',
  'RSA ',
  'PRIVATE KEY-----',
  'Bearer ',
  'bearer ',
  'BEARER ',
  'Password=',
  'pwd = ',
  'postgres://',
  'user:pa55@',
  'db.example.com',
  'AccountKey=',
  'sig=',
  'client-key-data: ',
  'PuTTY-User-Key-File-2:',
  '1//0',
  '123456789:AA',
  'MTk4NjIyNDgzNDcxOTI1MjQ4',
  'key-',
  'SK',
  'A3T',
  'AKIA',
  'ATATT3',
  'hooks.slack.com/services/',
  'https://',
  'discord.com/api/webhooks/1234/',
  '0123456789abcdef',
  'ABCDEFGHIJKLMNOP',
  'abcdefghijklmnop',
  'Zk8vQ2pL9xW4rT7y',
];

const pieceText = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 }), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)), {
    maxLength: 14,
  })
  .map((parts) => parts.join(''));

describe('the secret-scan gate', () => {
  it('reads every secret rule, so none is tried on every text', () => {
    expect(ungatedPatterns(SECRET_PATTERNS)).toEqual([]);
  });

  it('gives the answers of the scan it replaced on every fixture string', () => {
    const strings = fixtureStrings();
    expect(strings.length).toBeGreaterThan(10_000);
    const differences = strings.filter((s) => (findSecret(s)?.rule ?? null) !== referenceRule(s)).slice(0, 5);
    expect(differences).toEqual([]);
  });

  it(
    'gives the answers of the scan it replaced on generated strings',
    () => {
      fc.assert(
        fc.property(pieceText, (text) => {
          expect(findSecret(text)?.rule ?? null).toBe(referenceRule(text));
        }),
        propertyParameters(3000),
      );
    },
    timeoutFor(3000),
  );

  it(
    'finds the first pattern that matches, as testing each in order does',
    () => {
      const patterns = [
        /ab+c/,
        /(?<![a-z])x[0-9]{2,}/,
        /\bfoo\s+bar/i,
        /(?:^|;)\s*k=v/,
        /[^\s:]{2}:\d/,
        /a(?:b|cd)?e{0,3}f/,
        /(a)\1/,
        /q?/,
        /[\w.-]+@[\w-]+\.[a-z]{2,}/,
        /é./,
        /[^\s]x\]/,
      ];
      const firstMatch = compileFirstMatch(patterns);
      expect(ungatedPatterns(patterns)).toEqual([6, 7]);
      const alphabet = [
        'a',
        'b',
        'c',
        'd',
        'e',
        'f',
        'x',
        '1',
        '2',
        ';',
        'k',
        '=',
        'v',
        ' ',
        ':',
        '@',
        '.',
        'foo',
        'FOO',
        'bar',
        'é',
        'q',
        ']',
      ];
      fc.assert(
        fc.property(fc.array(fc.oneof(fc.constantFrom(...alphabet), fc.string({ maxLength: 3 })), { maxLength: 16 }), (parts) => {
          const text = parts.join('');
          expect(firstMatch(text)).toBe(patterns.findIndex((p) => p.test(text)));
        }),
        propertyParameters(3000),
      );
    },
    timeoutFor(3000),
  );

  it('keeps the list order past 64 patterns', () => {
    const patterns = Array.from({ length: 150 }, (_, i) => new RegExp(`<${i}>`));
    const firstMatch = compileFirstMatch(patterns);
    expect(firstMatch('x <70> <140> <3>')).toBe(3);
    expect(firstMatch('x <140> <70>')).toBe(70);
    expect(firstMatch('x <140>')).toBe(140);
    expect(firstMatch('x <150>')).toBe(-1);
  });
});
