import { describe, expect, it } from 'vitest';
import { hostParts, labelsOf, toUnicodeHost } from '../../src/url/host.js';

describe('labelsOf', () => {
  it('cuts a host at every dot, as split does, empty labels included', () => {
    for (const host of ['example.com', 'a.b.c.d', 'localhost', '', '.', 'a..b', '.a.', 'xn--80ak6aa92e.xn--p1ai'])
      expect(labelsOf(host), host).toEqual(host.split('.'));
  });
});

describe('hostParts of an IDN host', () => {
  it('cuts the Unicode pieces out of the decoded host, label by label', () => {
    const parts = hostParts('www.xn--80ak6aa92e.xn--p1ai');
    expect(parts.unicode).toBe('www.аррӏе.рф');
    expect(parts.registrableUnicode).toBe('аррӏе.рф');
    expect(parts.labelUnicode).toBe('аррӏе');
    expect(parts.suffixUnicode).toBe('рф');
    expect(parts.subdomainUnicode).toBe('www');
    expect(toUnicodeHost('www.xn--80ak6aa92e.xn--p1ai')).toBe(parts.unicode);
  });

  it('decodes a piece that does not line up with the labels on its own (a trailing dot)', () => {
    const parts = hostParts('a.xn--80ak6aa92e.xn--p1ai.');
    expect(parts.unicode).toBe('a.аррӏе.рф.');
    expect(parts.registrableUnicode).toBe('аррӏе.рф');
    expect(parts.subdomainUnicode).toBe('a');
  });
});
