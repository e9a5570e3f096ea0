/**
 * `isCanonicalWebUrl` is the scan that stands for the `CANONICAL_WEB_URL` regex on every URL
 * (it decides which inputs skip the WHATWG parser): the two must agree on every string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANONICAL_WEB_URL, canonicalView, isCanonicalWebUrl } from '../../src/url/canonical.js';
import { runCount } from '../properties/runs.js';

// The characters the regex treats differently, and a few it never allows.
const pieces = fc.constantFrom(
  'http',
  'https',
  '://',
  ':/',
  '/',
  '//',
  '.',
  '..',
  '-',
  'xn--',
  'xn-',
  'a',
  'z',
  'Z',
  '0',
  '9',
  '_',
  '~',
  '!',
  '$',
  '&',
  "'",
  '(',
  '*',
  '+',
  ',',
  ';',
  '=',
  ':',
  '?',
  '#',
  '%',
  '@',
  '[',
  '\\',
  ' ',
  '\n',
  'é',
  'а',
  'x'.repeat(62),
  'y'.repeat(63),
  'w'.repeat(64),
);

describe('isCanonicalWebUrl', () => {
  it('agrees with CANONICAL_WEB_URL on assembled strings', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 14 }), (parts) => {
        const text = parts.join('');
        expect(isCanonicalWebUrl(text)).toBe(CANONICAL_WEB_URL.test(text));
        const web = `https://${text}`;
        expect(isCanonicalWebUrl(web)).toBe(CANONICAL_WEB_URL.test(web));
      }),
      { numRuns: runCount(20000) },
    );
  });

  it('agrees with CANONICAL_WEB_URL on host-and-tail shaped strings, many of them canonical', () => {
    const label = fc.array(fc.constantFrom('a', 'q', 'z', '0', '7', '-', 'xn--', 'é', '_', 'A'), { minLength: 0, maxLength: 8 });
    let canonical = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('https://', 'http://', 'https:/'),
        fc.array(label, { minLength: 1, maxLength: 4 }),
        fc.array(pieces, { maxLength: 8 }),
        (scheme, labels, tail) => {
          const text = `${scheme}${labels.map((l) => l.join('')).join('.')}/${tail.join('')}`;
          const expected = CANONICAL_WEB_URL.test(text);
          if (expected) canonical++;
          expect(isCanonicalWebUrl(text)).toBe(expected);
        },
      ),
      { numRuns: runCount(20000) },
    );
    expect(canonical).toBeGreaterThan(0);
  });

  it.each([
    'http://a/',
    'https://a/',
    'http://a',
    'https://example.com/',
    'https://www.example.com/a/b?c=d&e#f?g#h',
    'https://a.b.c.example.com/path?q#',
    'https://1.example.com/',
    'https://example.1com/',
    'https://xn--80ak6aa92e.com/',
    'https://a.xn--p1ai/',
    'https://xna.com/',
    'https://example.com./',
    'https://.example.com/',
    'https://example..com/',
    'https://EXAMPLE.com/',
    'https://example.com:443/',
    'https://user@example.com/',
    "https://example.com/it's",
    'https://example.com/%20',
    'https://example.com/a b',
    `https://${'a'.repeat(63)}.com/`,
    `https://${'a'.repeat(64)}.com/`,
    'HTTPS://example.com/',
    'httpx://example.com/',
  ])('%s', (url) => {
    expect(isCanonicalWebUrl(url)).toBe(CANONICAL_WEB_URL.test(url));
  });

  it('cuts the same components out as the WHATWG parser for a canonical URL', () => {
    const url = 'https://docs.example.com/a/b;c?x=1&y=2#top?z';
    const view = canonicalView(url)!;
    const parsed = new URL(url);
    expect(view).toEqual({
      href: parsed.href,
      protocol: parsed.protocol,
      username: '',
      password: '',
      hostname: parsed.hostname,
      port: '',
      pathname: parsed.pathname,
      search: parsed.search,
      hash: parsed.hash,
    });
  });
});
