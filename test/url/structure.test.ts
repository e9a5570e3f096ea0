import { describe, expect, it } from 'vitest';
import { defaultPolicy, parsePolicy } from '../../src/policy/index.js';
import { analyzeUrl, UrlFinding } from '../../src/url/index.js';

const production = defaultPolicy.base;
const development = parsePolicy({ profile: 'development' }).base;
const codes = (url: string, p = production) => analyzeUrl(url, p).findings.map((f) => f.code);
const verdict = (url: string, p = production) => analyzeUrl(url, p).verdict;

describe('schemes', () => {
  it.each([
    'javascript:alert(1)',
    'data:text/html,<b>hi</b>',
    'file:///etc/passwd',
    'ftp://example.com/',
    'vbscript:msgbox',
    'blob:https://example.com/1',
    'mailto:a@example.com',
    'ws://example.com/',
  ])('%s blocks in every profile', (url) => {
    expect(codes(url)).toContain(UrlFinding.scheme);
    expect(verdict(url, development)).toBe('block');
  });

  it('allows http only to loopback, only in development', () => {
    expect(codes('http://example.com/')).toContain(UrlFinding.scheme);
    expect(verdict('http://example.com/', development)).toBe('block');
    expect(verdict('http://localhost:3000/callback', production)).toBe('block');
    expect(verdict('http://localhost:3000/callback', development)).toBe('allow');
    expect(verdict('http://127.0.0.1:8080/cb', development)).toBe('allow');
    expect(verdict('http://[::1]:8080/cb', development)).toBe('allow');
    expect(verdict('http://app.localhost/', development)).toBe('allow');
    expect(verdict('https://localhost/', development)).toBe('allow');
  });

  it('reports an allowed loopback as information', () => {
    const a = analyzeUrl('http://127.0.0.1:8080/cb', development);
    expect(a.findings).toEqual([expect.objectContaining({ code: UrlFinding.loopbackDevelopment, severity: 'info' })]);
  });

  it('blocks relative and garbage input', () => {
    for (const url of ['/relative/path', 'example.com', '', 'https://', 'https://exa mple.com/', '::::'])
      expect(codes(url)).toContain(UrlFinding.notAbsolute);
  });
});

describe('IP literal hosts', () => {
  it.each([
    ['https://127.0.0.1/', UrlFinding.ipHost],
    ['https://93.184.216.34/', UrlFinding.ipHost],
    ['https://[2001:db8::1]/', UrlFinding.ipHost],
    ['https://2130706433/', UrlFinding.ipObfuscated], // decimal
    ['https://0x7f000001/', UrlFinding.ipObfuscated], // hex
    ['https://0x7f.1/', UrlFinding.ipObfuscated], // hex, short
    ['https://0177.0.0.1/', UrlFinding.ipObfuscated], // octal
    ['https://127.1/', UrlFinding.ipObfuscated], // short
    ['https://１２７.０.０.１/', UrlFinding.ipObfuscated], // fullwidth digits
    ['https://[::ffff:127.0.0.1]/', UrlFinding.ipObfuscated], // IPv4-mapped
    ['https://[::ffff:7f00:1]/', UrlFinding.ipObfuscated],
  ])('%s blocks with %s', (url, code) => {
    expect(codes(url)).toContain(code);
    if (code === UrlFinding.ipObfuscated) expect(verdict(url, development)).toBe('block');
  });

  it('shows the canonical address', () => {
    expect(analyzeUrl('https://0x7f.1/', production).display.host).toBe('127.0.0.1');
  });

  it('allows plain loopback literals in development only', () => {
    expect(verdict('https://127.0.0.1/', development)).toBe('allow');
    expect(verdict('https://127.0.0.53/', development)).toBe('allow');
    expect(verdict('https://10.0.0.1/', development)).toBe('block');
  });
});

describe('hosts without a registrable owner', () => {
  it.each([
    ['https://localhost/', UrlFinding.noRegistrableDomain],
    ['https://myhost/', UrlFinding.unknownSuffix],
    ['https://intranet/', UrlFinding.specialUseHost],
    ['https://com/', UrlFinding.noRegistrableDomain],
    ['https://co.uk/', UrlFinding.noRegistrableDomain],
    ['https://printer.local/', UrlFinding.specialUseHost],
    ['https://router.home.arpa/', UrlFinding.specialUseHost],
    ['https://app.internal/', UrlFinding.specialUseHost],
    ['https://something.onion/', UrlFinding.specialUseHost],
    ['https://fanserial.xn--q1aa/', UrlFinding.unknownSuffix], // an undelegated Cyrillic "cc"
  ])('%s blocks with %s', (url, code) => {
    expect(codes(url)).toContain(code);
  });

  it('finds every special-use name, as a whole top-level label and under a host', () => {
    const names = ['local', 'localdomain', 'internal', 'intranet', 'lan', 'test', 'example', 'invalid', 'onion', 'alt', 'corp', 'private'];
    for (const name of names) {
      expect(codes(`https://${name}/`), name).toContain(UrlFinding.specialUseHost);
      expect(codes(`https://a.b-c.${name}/x?y=1`), name).toContain(UrlFinding.specialUseHost);
    }
    expect(codes('https://home.arpa/')).toContain(UrlFinding.specialUseHost);
    // Same first letter and length as a special-use name, or a special-use name inside a label: not one.
    for (const host of ['lab.com', 'example.lat', 'example.tent', 'example.xlocal', 'example.localx', 'example.app', 'in-addr.arpa'])
      expect(codes(`https://${host}/`), host).not.toContain(UrlFinding.specialUseHost);
  });

  it('treats a private-suffix user site as a site and the suffix itself as its operator', () => {
    expect(analyzeUrl('https://alice.github.io/', production).display.registrableDomain).toBe('alice.github.io');
    expect(verdict('https://github.io/')).toBe('allow');
    expect(analyzeUrl('https://bucket.s3.amazonaws.com/', production).display.registrableDomain).toBe('bucket.s3.amazonaws.com');
  });
});

describe('host spelling', () => {
  it('blocks percent-encoded hosts', () => {
    expect(codes('https://%70aypal.com/')).toContain(UrlFinding.hostPercentEncoded);
    expect(codes('https://paypal%2ecom/')).toContain(UrlFinding.hostPercentEncoded);
  });

  it('blocks empty labels and the trailing dot', () => {
    for (const url of ['https://a..example.com/', 'https://.example.com/', 'https://example.com./'])
      expect(codes(url)).toContain(UrlFinding.emptyLabel);
  });

  it('blocks hosts over DNS limits and URLs over the policy limit', () => {
    expect(codes(`https://${'a'.repeat(64)}.com/`)).toContain(UrlFinding.hostTooLong);
    expect(codes(`https://${Array(60).fill('abcd').join('.')}.com/`)).toContain(UrlFinding.hostTooLong);
    expect(codes(`https://example.com/${'a'.repeat(2100)}`)).toContain(UrlFinding.tooLong);
    const roomy = parsePolicy({ url: { maxLength: 4096 } }).base;
    expect(verdict(`https://example.com/${'a'.repeat(2100)}`, roomy)).toBe('allow');
  });

  it('blocks characters that are not in domain names', () => {
    expect(codes('https://exa*mple.com/')).toContain(UrlFinding.hostCharacter);
  });

  it('blocks fullwidth, styled and ideographic-dot spellings of a host', () => {
    for (const url of ['https://ｐａｙｐａｌ.com/', 'https://ⓟⓐⓨⓟⓐⓛ.com/', 'https://ﬁgma.com/', 'https://example\u3002com/']) {
      const a = analyzeUrl(url, production);
      expect(a.findings.map((f) => f.code)).toContain(UrlFinding.hostNormalized);
      expect(a.verdict).toBe('block');
    }
  });
});

describe('characters the parser hides', () => {
  it.each([
    ['https://pay\u200bpal.com/', UrlFinding.invisibleCharacter], // zero-width space, dropped by IDNA
    ['https://pay\u00adpal.com/', UrlFinding.invisibleCharacter], // soft hyphen
    ['https://example.com/\u202egnp.exe', UrlFinding.bidiControl],
    ['https://example.com/?a=\u2066b', UrlFinding.bidiControl],
    ['https://exa\tmple.com/', UrlFinding.controlCharacter], // tab, dropped by the parser
    ['https://example.com/\npath', UrlFinding.controlCharacter],
    ['https://example.com/\u0000', UrlFinding.controlCharacter],
    ['https://example.com/a\u3000b', UrlFinding.invisibleCharacter], // ideographic space
  ])('%j blocks with %s', (url, code) => {
    const a = analyzeUrl(url, production);
    expect(a.verdict).toBe('block');
    expect(a.findings.map((f) => f.code)).toContain(code);
    expect(a.findings.find((f) => f.code === code)?.message).toMatch(/U\+[0-9A-F]{4}/);
  });
});

describe('userinfo and parser differentials', () => {
  it.each([
    'https://paypal.com@evil.example.net/',
    'https://user:secret@example.com/',
    'https://@example.com/',
    'https://example.com:443@evil.net/',
  ])('%s blocks as userinfo', (url) => {
    expect(codes(url)).toContain(UrlFinding.userinfo);
  });

  it('masks a password in the display', () => {
    const a = analyzeUrl('https://user:hunter2@example.com/', production);
    expect(a.display.full).toBe('https://user:***@example.com/');
    expect(a.display.full).not.toContain('hunter2');
  });

  it.each(['https://evil.com\\@paypal.com', 'https:\\\\evil.com', 'https://login-check.io\\.okta.com/'])(
    '%s blocks as a backslash',
    (url) => {
      expect(codes(url)).toContain(UrlFinding.backslash);
    },
  );

  it('ignores a backslash inside the query', () => {
    expect(verdict('https://example.com/search?q=a\\b')).toBe('allow');
  });

  it.each([
    'https://evil.com#@paypal.com',
    'https://login-check.io?@paypal.com',
    'https://login-check.io/@paypal.com',
    'https://auth-portal.xyz#@login.microsoftonline.com/common',
  ])('%s blocks as a decoy host', (url) => {
    expect(codes(url)).toContain(UrlFinding.decoyHost);
  });

  it('allows @-handles, scopes and tenants after an @', () => {
    for (const url of [
      'https://medium.com/@jane/post',
      'https://www.npmjs.com/package/@modelcontextprotocol/sdk',
      'https://portal.azure.com/#@contoso.onmicrosoft.com/resource',
      'https://www.google.com/maps/@48.13,11.57,17z',
      'https://mastodon.social/@Gargron@mastodon.social',
    ]) {
      expect(codes(url)).not.toContain(UrlFinding.decoyHost);
    }
  });
});

describe('policy allowed hosts', () => {
  const allowed = parsePolicy({ url: { allowedHosts: ['example.com', 'auth.partner.org'] } }).base;

  it('allows the listed hosts and their subdomains only', () => {
    expect(verdict('https://example.com/', allowed)).toBe('allow');
    expect(verdict('https://app.example.com/', allowed)).toBe('allow');
    expect(verdict('https://auth.partner.org/login', allowed)).toBe('allow');
    expect(codes('https://www.partner.org/', allowed)).toContain(UrlFinding.hostNotAllowed);
    expect(codes('https://example.net/', allowed)).toContain(UrlFinding.hostNotAllowed);
    expect(codes('https://example.com.evil.net/', allowed)).toContain(UrlFinding.hostNotAllowed);
  });
});

describe('delimiter look-alikes inside the host (issue 12)', () => {
  it.each([
    'paypal.com\u2215account.verify-center.net',
    'github.com\u2571login.session-sync.io',
    'paypal\uA789443.account-check.net',
    'www.paypal\u0589com',
    'secure.chase\u00B7com',
    'binance\u2219com',
    'login\u02F8microsoftonline.com',
    'facebook.com\u30CEsecurity.page-appeal.com',
  ])('%s', (host) => {
    const url = `https://${host}/signin`;
    expect(verdict(url)).toBe('block');
    expect(codes(url)).toContain(UrlFinding.hostDelimiterLookalike);
  });

  it('allows Catalan l·l under .cat and katakana inside Japanese labels', () => {
    expect(codes('https://col\u00B7legi.cat/')).not.toContain(UrlFinding.hostDelimiterLookalike);
    expect(codes('https://\u30DD\u30B1\u30E2\u30F3.com/')).not.toContain(UrlFinding.hostDelimiterLookalike);
  });
});
