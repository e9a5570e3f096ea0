import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/policy/index.js';
import { analyzeUrl, type UrlDisplay } from '../../src/url/index.js';

const display = (url: string): UrlDisplay => analyzeUrl(url, defaultPolicy.base).display;
const kinds = (d: UrlDisplay) => d.segments.map((s) => [s.kind, s.text]);

describe('display segments', () => {
  it('cut the canonical URL and mark only the registrable domain', () => {
    const d = display('HTTPS://Login.PayPal.com:8443/a/../signin?x=1#top');
    expect(kinds(d)).toEqual([
      ['scheme', 'https'],
      ['separator', '://'],
      ['subdomain', 'login.'],
      ['registrable', 'paypal.com'],
      ['port', ':8443'],
      ['path', '/signin'],
      ['query', '?x=1'],
      ['fragment', '#top'],
    ]);
    expect(d.segments.filter((s) => s.highlight).map((s) => s.text)).toEqual(['paypal.com']);
    expect(d.full).toBe('https://login.paypal.com:8443/signin?x=1#top');
    expect(d.segments.map((s) => s.text).join('')).toBe(d.full);
    expect(d).toMatchObject({
      scheme: 'https',
      host: 'login.paypal.com',
      hostAscii: 'login.paypal.com',
      hostUnicode: 'login.paypal.com',
      registrableDomain: 'paypal.com',
      punycodeShown: false,
    });
  });

  it('drop the default port and keep empty query and fragment delimiters', () => {
    expect(display('https://example.com:443/').full).toBe('https://example.com/');
    expect(display('https://example.com/?').full).toBe('https://example.com/?');
    expect(display('https://example.com/#').full).toBe('https://example.com/#');
    expect(display('https://example.com/?#').full).toBe('https://example.com/?#');
  });

  it('show a safe internationalised host in Unicode', () => {
    const d = display('https://www.xn--mnchen-3ya.de/stadt');
    expect(d).toMatchObject({
      host: 'www.münchen.de',
      hostUnicode: 'www.münchen.de',
      hostAscii: 'www.xn--mnchen-3ya.de',
      registrableDomain: 'münchen.de',
      punycodeShown: false,
    });
    expect(d.full).toBe('https://www.münchen.de/stadt');
  });

  it('show an unsafe internationalised host in Punycode only', () => {
    const d = display('https://ѕсоре.com/');
    expect(d).toMatchObject({
      host: 'xn--e1argc3h.com',
      hostAscii: 'xn--e1argc3h.com',
      hostUnicode: 'ѕсоре.com',
      registrableDomain: 'xn--e1argc3h.com',
      punycodeShown: true,
    });
    expect(d.full).toBe('https://xn--e1argc3h.com/');
  });

  it('highlight the whole host when there is no registrable domain', () => {
    const d = display('https://127.0.0.1:8080/x');
    expect(d.segments.find((s) => s.highlight)).toEqual({ kind: 'host', text: '127.0.0.1', highlight: true });
    expect(d.registrableDomain).toBeNull();
  });

  it('show userinfo so the user sees it, with the password masked', () => {
    const d = display('https://paypal.com:hunter2@evil.example.net/');
    expect(kinds(d).slice(0, 4)).toEqual([
      ['scheme', 'https'],
      ['separator', '://'],
      ['userinfo', 'paypal.com:***@'],
      ['subdomain', 'evil.'],
    ]);
  });

  it('keep percent-escapes in the path, so bidi controls never render', () => {
    expect(display('https://example.com/\u202egnp.exe').full).toBe('https://example.com/%E2%80%AEgnp.exe');
  });

  it('cover schemes without an authority', () => {
    const d = display('javascript:alert(1)');
    expect(kinds(d)).toEqual([
      ['scheme', 'javascript'],
      ['separator', ':'],
      ['path', 'alert(1)'],
    ]);
    expect(d.host).toBeNull();
  });

  it('never truncate a long URL', () => {
    const long = `https://example.com/${'a'.repeat(1500)}`;
    expect(display(long).full).toBe(long);
  });

  it('have every key even when the input is not a URL', () => {
    const d = display('not a url');
    expect(d).toEqual({
      full: '',
      segments: [],
      scheme: null,
      host: null,
      hostUnicode: null,
      hostAscii: null,
      registrableDomain: null,
      punycodeShown: false,
    });
  });
});
