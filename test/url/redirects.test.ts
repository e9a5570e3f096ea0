import { describe, expect, it } from 'vitest';
import { defaultPolicy, parsePolicy } from '../../src/policy/index.js';
import { analyzeUrl, UrlFinding } from '../../src/url/index.js';

const policy = defaultPolicy.base;
const findingsOf = (url: string, p = policy) => analyzeUrl(url, p).findings;

describe('redirect-like parameters', () => {
  it('warns about a redirect to another site and names its host', () => {
    const a = analyzeUrl('https://example.com/login?next=https://other-site.net/welcome', policy);
    expect(a.verdict).toBe('warn');
    expect(a.findings).toEqual([expect.objectContaining({ code: UrlFinding.redirectOffsite, severity: 'warning' })]);
    expect(a.findings[0]?.message).toContain('other-site.net');
  });

  it.each(['redirect_uri', 'redirect_url', 'return_to', 'returnTo', 'continue', 'url', 'dest', 'destination', 'callback', 'goto'])(
    'reads %s',
    (name) => {
      expect(findingsOf(`https://example.com/?${name}=https%3A%2F%2Fother-site.net%2F`).map((f) => f.code)).toContain(
        UrlFinding.redirectOffsite,
      );
    },
  );

  it('reads protocol-relative and double-encoded targets', () => {
    expect(findingsOf('https://example.com/?next=//other-site.net/').map((f) => f.code)).toContain(UrlFinding.redirectOffsite);
    expect(findingsOf('https://example.com/?next=https%253A%252F%252Fother-site.net%252F').map((f) => f.code)).toContain(
      UrlFinding.redirectOffsite,
    );
  });

  it('says nothing about a redirect inside the same site or to a relative path', () => {
    expect(findingsOf('https://www.example.com/login?next=https://app.example.com/home')).toEqual([]);
    expect(findingsOf('https://example.com/login?next=/dashboard')).toEqual([]);
  });

  it('treats a loopback redirect_uri as information (native OAuth clients)', () => {
    const a = analyzeUrl(
      'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&' +
        'redirect_uri=http%3A%2F%2F127.0.0.1%3A8976%2Fcallback&state=abc',
      policy,
    );
    expect(a.verdict).toBe('allow');
    expect(a.findings).toEqual([expect.objectContaining({ code: UrlFinding.redirectLoopback, severity: 'info' })]);
  });

  it('treats the redirect_uri of an OAuth request as information: the provider checks it against the client', () => {
    const a = analyzeUrl(
      'https://accounts.google.com/o/oauth2/v2/auth?client_id=1.apps.googleusercontent.com&' +
        'redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&response_type=code&scope=openid',
      policy,
    );
    expect(a.verdict).toBe('allow');
    expect(a.findings).toEqual([expect.objectContaining({ code: UrlFinding.redirectOffsite, severity: 'info' })]);
  });

  it('blocks a redirect to a look-alike, an IP address or a script', () => {
    expect(findingsOf('https://www.google.com/url?q=x&url=https://paypa1.com/').map((f) => f.code)).toContain(UrlFinding.redirectUnsafe);
    expect(findingsOf('https://example.com/?next=http://10.0.0.1/').map((f) => f.code)).toContain(UrlFinding.redirectUnsafe);
    expect(findingsOf('https://example.com/?next=javascript:alert(1)').map((f) => f.code)).toContain(UrlFinding.redirectUnsafe);
  });
});

describe('policy redirect hosts', () => {
  const strict = parsePolicy({ url: { redirectHosts: ['app.example.com'] } }).base;

  it('blocks a target outside the list', () => {
    expect(analyzeUrl('https://idp.example.org/authorize?redirect_uri=https://evil.example.net/cb', strict).verdict).toBe('block');
    expect(findingsOf('https://idp.example.org/authorize?redirect_uri=https://evil.example.net/cb', strict).map((f) => f.code)).toContain(
      UrlFinding.redirectNotAllowed,
    );
  });

  it('allows a listed target, a loopback target and the own site', () => {
    expect(analyzeUrl('https://idp.example.org/authorize?redirect_uri=https://app.example.com/cb', strict).verdict).not.toBe('block');
    expect(analyzeUrl('https://idp.example.org/authorize?redirect_uri=http://127.0.0.1:9000/cb', strict).verdict).toBe('allow');
    expect(analyzeUrl('https://idp.example.org/authorize?next=https://www.example.org/home', strict).verdict).toBe('allow');
  });
});

describe('redirect decoys (issue 12)', () => {
  it.each([
    'https://www.google.com/url?q=https%3A%2F%2Fwww.other-site.net%2F&sa=D',
    'https://www.linkedin.com/redir/redirect?url=https%3A%2F%2Fnews.other-site.org%2F',
    'https://mail.example.net/c?to=https%3A%2F%2Fdeals.other-site.shop%2F',
    'https://link.example.net/click?r=https%3A%2F%2Fwww.other-site.net%2Fsale',
    'https://go.example.net/out?link=https://www.other-site.org/pricing',
    'https://redirect.example.net/go?r=' + encodeURIComponent(btoa('https://landing.other-site.net/spring')),
    'https://www.google.com/amp/s/www.other-site.net/article',
  ])('warns and names the target: %s', (url) => {
    const a = analyzeUrl(url, policy);
    expect(a.verdict).toBe('warn');
    const offsite = a.findings.find((f) => f.code === UrlFinding.redirectOffsite);
    expect(offsite?.severity).toBe('warning');
    expect(offsite?.message).toMatch(/other-site\./);
  });

  it.each([
    'https://www.google.com/url?q=https://paypa1.com/login&sa=D',
    'https://app.example.net/r?to=javascript:alert(document.cookie)',
    'https://t.example.net/track?link=https%3A%2F%2Faccounts.google.com%40signin-verify.net%2F',
    'https://redirect.example.net/go?r=' + encodeURIComponent(btoa('https://g00gle.com/signin')),
    'https://portal.example.net/logout?continue=https://coinbase-wallet-help.com/',
  ])('blocks a target that would itself be blocked: %s', (url) => {
    const a = analyzeUrl(url, policy);
    expect(a.verdict).toBe('block');
    expect(a.findings.map((f) => f.code)).toContain(UrlFinding.redirectUnsafe);
  });

  it('leaves a search query, a same-site target and a relative path alone', () => {
    expect(analyzeUrl('https://www.google.com/search?q=paypal+login+help', policy).verdict).toBe('allow');
    expect(analyzeUrl('https://github.com/login?return_to=%2Fsettings%2Ftokens', policy).verdict).toBe('allow');
    expect(analyzeUrl('https://accounts.google.com/ServiceLogin?continue=https%3A%2F%2Fmail.google.com%2Fmail%2F', policy).verdict).toBe(
      'allow',
    );
  });
});

describe('URL shorteners and open redirectors (issue 12)', () => {
  it.each(['https://bit.ly/3xYzAbC', 'https://tinyurl.com/y7u8ewlr', 'https://t.co/AbC123xyZ9', 'https://lnkd.in/gXyZ12k'])(
    '%s warns that the target cannot be shown',
    (url) => {
      const a = analyzeUrl(url, policy);
      expect(a.verdict).toBe('warn');
      expect(a.findings.find((f) => f.code === UrlFinding.shortener)?.message).toMatch(/cannot be shown/);
    },
  );

  it("does not warn about the shortener's own home page", () => {
    expect(analyzeUrl('https://bit.ly/', policy).findings.map((f) => f.code)).not.toContain(UrlFinding.shortener);
  });

  it('says so when a redirect target is itself a shortener', () => {
    const a = analyzeUrl('https://www.google.com/amp/s/tinyurl.com/y7u8ewlr', policy);
    expect(a.findings.find((f) => f.code === UrlFinding.redirectOffsite)?.message).toMatch(/tinyurl\.com.*cannot be shown/);
  });
});

describe('the redirect_uri of an authorization request and per-server redirect hosts (issue 12)', () => {
  const request =
    'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&' +
    'redirect_uri=https%3A%2F%2Fcollector.other-site.net%2Fcb&state=abc&scope=repo';
  it('is information without a policy', () => {
    expect(analyzeUrl(request, policy).verdict).toBe('allow');
  });

  it("blocks only through the redirect hosts of the server's policy", () => {
    const document = parsePolicy({ servers: { github: { url: { redirectHosts: ['prflow.dev'] } } } });
    expect(analyzeUrl(request, document.forServer('github')).verdict).toBe('block');
    expect(analyzeUrl(request, document.forServer('other')).verdict).toBe('allow');
  });
});
