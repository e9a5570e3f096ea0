import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultPolicy, parsePolicy, type Policy } from '../../src/policy/index.js';
import { verdictOf } from '../../src/protocol/verdict.js';
import { analyzeUrl, UrlFinding, type UrlAnalysis } from '../../src/url/index.js';
import { rawAuthority } from '../../src/url/canonical.js';

const policy = defaultPolicy.base;
const DISPLAY_KEYS = ['full', 'segments', 'scheme', 'host', 'hostUnicode', 'hostAscii', 'registrableDomain', 'punycodeShown'].sort();
const CODES = new Set<string>(Object.values(UrlFinding));

function expectWellFormed(a: UrlAnalysis): void {
  expect(Object.keys(a).sort()).toEqual(['display', 'findings', 'verdict']);
  expect(Object.keys(a.display).sort()).toEqual(DISPLAY_KEYS);
  expect(a.verdict).toBe(verdictOf(a.findings));
  for (const f of a.findings) {
    expect(CODES.has(f.code)).toBe(true);
    expect(['error', 'warning', 'info']).toContain(f.severity);
    expect(f.message.length).toBeGreaterThan(0);
  }
  expect(a.display.segments.map((s) => s.text).join('')).toBe(a.display.full);
}

describe('analyzeUrl never throws', () => {
  it.each([undefined, null, 42, {}, [], Symbol('x'), () => 'https://example.com/', new URL('https://example.com/')])(
    'blocks a non-string (%s)',
    (value) => {
      const a = analyzeUrl(value as unknown as string, policy);
      expect(a.verdict).toBe('block');
      expect(a.findings.map((f) => f.code)).toEqual([UrlFinding.invalidInput]);
      expectWellFormed(a);
    },
  );

  it('blocks a huge string without parsing it', () => {
    const a = analyzeUrl(`https://example.com/${'a'.repeat(5_000_000)}`, policy);
    expect(a.findings.map((f) => f.code)).toEqual([UrlFinding.tooLong]);
    expectWellFormed(a);
  });

  it('blocks lone surrogates', () => {
    for (const url of ['https://example.com/\ud800', 'https://exa\udc00mple.com/']) {
      const a = analyzeUrl(url, policy);
      expect(a.findings.map((f) => f.code)).toEqual([UrlFinding.malformedUnicode]);
    }
  });

  it('survives a missing or malformed policy', () => {
    expectWellFormed(analyzeUrl('https://example.com/', undefined as unknown as Policy));
    expectWellFormed(analyzeUrl('https://example.com/', { url: { allowedHosts: 'nope', maxLength: -1 } } as unknown as Policy));
    expect(analyzeUrl('https://example.com/', null as unknown as Policy).verdict).toBe('allow');
  });

  it('returns a well-formed result for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        expectWellFormed(analyzeUrl(s, policy));
      }),
      { numRuns: 300 },
    );
  });

  it('returns a well-formed result for URL-shaped strings with hostile pieces', () => {
    const piece = fc.constantFrom(
      'paypal',
      'xn--pypal-4ve',
      'а',
      '\u200b',
      '\u202e',
      '%',
      '%40',
      '@',
      '\\',
      '..',
      '.',
      ':',
      '[',
      ']',
      '::1',
      '0x7f',
      '1',
      '?',
      '#',
      '/',
      'ｐ',
      '。',
      'é',
      '\u0307',
      'ı',
      'login',
      '-',
      'com',
      '\ud800',
      '\t',
      ' ',
    );
    const url = fc
      .tuple(fc.constantFrom('https://', 'http://', 'HTTPS:\\\\', 'javascript:', ''), fc.array(piece, { maxLength: 24 }))
      .map(([scheme, parts]) => scheme + parts.join(''));
    fc.assert(
      fc.property(url, fc.constantFrom(policy, parsePolicy({ profile: 'development' }).base), (u, p) => {
        expectWellFormed(analyzeUrl(u, p));
      }),
      { numRuns: 400 },
    );
  });
});

describe('the rules of the issue, end to end', () => {
  it.each([
    ['https://paypal.com/', 'allow'],
    ['https://www.paypal.com/myaccount/summary', 'allow'],
    ['https://alice.github.io/project/', 'allow'],
    ['https://münchen.de/', 'allow'],
    ['https://bücher.de/', 'allow'],
    ['https://例え.jp/', 'allow'],
    ['https://пример.рф/', 'allow'],
    ['https://pineapple.com/', 'allow'],
    ['https://ѕсоре.com/', 'warn'], // whole-script confusable of no protected domain: Punycode and a warning
    ['https://pаypal.com/', 'block'],
    ['https://xn--pypal-4ve.com/', 'block'],
    ['https://аррӏе.com/', 'block'],
    ['https://google.com\u3002evil.com/', 'block'],
    ['https://ｐａｙｐａｌ.com/', 'block'],
    ['https://pay\u200bpal.com/', 'block'],
    ['https://paypal.com\u202e.evil.net/', 'block'],
    ['http://example.com/', 'block'],
    ['https://user@example.com/', 'block'],
    ['https://2130706433/', 'block'],
  ] as const)('%s → %s', (url, expected) => {
    const a = analyzeUrl(url, policy);
    expect(a.verdict).toBe(expected);
    expectWellFormed(a);
  });
});

describe('rawAuthority', () => {
  it('cuts the authority as the WHATWG parser does', () => {
    expect(rawAuthority('https://user:pw@Example.COM:8443/path')).toEqual({ userinfo: 'user:pw', host: 'Example.COM' });
    expect(rawAuthority('https://evil.com\\@paypal.com')).toEqual({ userinfo: null, host: 'evil.com' });
    expect(rawAuthority('https:\\\\evil.com/x')).toEqual({ userinfo: null, host: 'evil.com' });
    expect(rawAuthority('https://[::ffff:127.0.0.1]:80/')).toEqual({ userinfo: null, host: '[::ffff:127.0.0.1]' });
    expect(rawAuthority('  https://ex\tample.com/ ')).toEqual({ userinfo: null, host: 'example.com' });
    expect(rawAuthority('https://a@b@c.com/')).toEqual({ userinfo: 'a@b', host: 'c.com' });
    expect(rawAuthority('mailto:a@b.com')).toBeNull();
    expect(rawAuthority('no scheme')).toBeNull();
  });
});
