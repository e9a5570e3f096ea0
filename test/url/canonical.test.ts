/**
 * `canonicalView` reads a URL without the WHATWG parser only when the parser would give it back
 * unchanged: every view it returns must equal the parser's, component by component.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalView, viewOf } from '../../src/url/canonical.js';
import { runCount } from '../properties/runs.js';

function parsed(input: string) {
  return viewOf(new URL(input));
}

const label63 = 'a'.repeat(63);
// Three labels of 63 and one of 61: 253 characters.
const host253 = `${label63}.${label63}.${label63}.${label63.slice(0, 61)}`;

describe('canonicalView', () => {
  it('reads canonical web URLs, percent-escapes in the path, query and fragment included, as the parser does', () => {
    for (const input of [
      'https://example.com/',
      'http://a.b-c.example/x/y.z?q=1&r=a+b#frag?x#y',
      'https://example.com/login?next=%2Fdashboard',
      'https://example.com/%41%zz/?%2e#%2e',
      'https://example.com/a/.b/..c/...?x=/./#/../',
      'https://example.com/?',
      'https://example.com/#',
      'https://example.com/?#',
      `https://${label63}.com/`,
      `https://${host253}/`,
    ]) {
      const view = canonicalView(input);
      expect(view, input).not.toBeNull();
      expect(view).toEqual(parsed(input));
    }
  });

  it('leaves to the parser what it would change or validate', () => {
    for (const input of [
      'https://Example.com/',
      'HTTPS://example.com/',
      'https://example.com',
      'https://example.com:443/',
      'https://user@example.com/',
      'https://xn--80ak6aa92e.com/',
      'https://a.xn--p1ai/',
      'https://example.com./',
      'https://example..com/',
      'https://.example.com/',
      'https://example.0com/',
      'https://1.2.3.4/',
      'https://example.7z/',
      `https://${label63}a.com/`,
      `https://${host253}a/`,
      'https://example.com/./',
      'https://example.com/a/..',
      'https://example.com/a/..?x',
      'https://example.com/a/.#x',
      'https://example.com/%2e/',
      'https://example.com/a/%2E%2e',
      "https://example.com/?q='",
      'https://example.com/a b',
      'https://example.com/a\\b',
      'https://example.com/é',
      'https://example.com/^',
      'https://exa_mple.com/',
    ])
      expect(canonicalView(input), input).toBeNull();
  });

  it('returns only what the parser returns, on URLs built from delimiters, escapes and dot segments', () => {
    const piece = fc.constantFrom(
      'a',
      'z',
      'A',
      '0',
      '-',
      '_',
      '.',
      '..',
      '/',
      '?',
      '#',
      '%',
      '%2e',
      '%2E',
      'xn--',
      ':',
      '@',
      '\\',
      "'",
      ' ',
      '~',
      '&',
      '=',
      'é',
      '^',
      '`',
      '{',
      '|',
      '[',
      '"',
      '<',
      '\t',
      '/./',
      '/../',
      '.com',
    );
    // Mostly a host the scan can accept, so the tail's characters are what decides.
    const host = fc.array(fc.constantFrom('a', 'z', '0', '-', '.', 'xn--', 'com', 'A', '_'), { minLength: 1, maxLength: 6 });
    const url = fc
      .tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'https:/', 'http:'), host, fc.array(piece, { maxLength: 14 }))
      .map(([scheme, labels, pieces]) => `${scheme}${labels.join('')}/${pieces.join('')}`);
    fc.assert(
      fc.property(url, (input) => {
        const view = canonicalView(input);
        if (view !== null) expect(view).toEqual(parsed(input));
      }),
      { numRuns: runCount(3000) },
    );
  });

  // A long query or fragment is checked by a regex scan rather than character by character.
  const longQuery = `?client_id=abc&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&scope=${'openid+profile+'.repeat(6)}`;

  it('reads a long query and fragment as the parser does', () => {
    for (const input of [
      `https://example.com/authorize${longQuery}`,
      `https://example.com/authorize${longQuery}#state=/./..?x#y`,
      `https://example.com/${longQuery}?again`,
      `https://example.com/#${longQuery}`,
      `https://example.com/a/b${longQuery}#`,
    ]) {
      const view = canonicalView(input);
      expect(view, input).not.toBeNull();
      expect(view).toEqual(parsed(input));
    }
  });

  it('leaves a long query or fragment with a character the parser encodes to the parser', () => {
    for (const bad of ["'", ' ', '"', '<', '^', '`', '{', '|', 'é', '\\', '@', '[']) {
      expect(canonicalView(`https://example.com/authorize${longQuery}${bad}`), bad).toBeNull();
      expect(canonicalView(`https://example.com/authorize${bad}${longQuery}`), bad).toBeNull();
      expect(canonicalView(`https://example.com/#${longQuery}${bad}x`), bad).toBeNull();
    }
  });

  it('returns only what the parser returns, on long queries and fragments', () => {
    const piece = fc.constantFrom(
      'a',
      '0',
      '-',
      '_',
      '.',
      '/',
      '?',
      '#',
      '%',
      '%2e',
      ':',
      '@',
      '\\',
      "'",
      ' ',
      '~',
      '&',
      '=',
      'é',
      '^',
      '`',
      '"',
    );
    const url = fc
      .tuple(fc.array(piece, { maxLength: 4 }), fc.array(piece, { maxLength: 40 }))
      .map(([path, tail]) => `https://example.com/${path.join('')}${longQuery}${tail.join('')}`);
    fc.assert(
      fc.property(url, (input) => {
        const view = canonicalView(input);
        if (view !== null) expect(view).toEqual(parsed(input));
      }),
      { numRuns: runCount(2000) },
    );
  });
});
