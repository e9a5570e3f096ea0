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

  it.each(['redirect_uri', 'redirect_url', 'return_to', 'returnTo', 'continue', 'url', 'dest', 'destination', 'callback', 'goto'])('reads %s', (name) => {
    expect(findingsOf(`https://example.com/?${name}=https%3A%2F%2Fother-site.net%2F`).map((f) => f.code)).toContain(UrlFinding.redirectOffsite);
  });

  it('reads protocol-relative and double-encoded targets', () => {
    expect(findingsOf('https://example.com/?next=//other-site.net/').map((f) => f.code)).toContain(UrlFinding.redirectOffsite);
    expect(findingsOf('https://example.com/?next=https%253A%252F%252Fother-site.net%252F').map((f) => f.code)).toContain(UrlFinding.redirectOffsite);
  });

  it('says nothing about a redirect inside the same site or to a relative path', () => {
    expect(findingsOf('https://www.example.com/login?next=https://app.example.com/home')).toEqual([]);
    expect(findingsOf('https://example.com/login?next=/dashboard')).toEqual([]);
  });

  it('treats a loopback redirect_uri as information (native OAuth clients)', () => {
    const a = analyzeUrl('https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&redirect_uri=http%3A%2F%2F127.0.0.1%3A8976%2Fcallback&state=abc', policy);
    expect(a.verdict).toBe('allow');
    expect(a.findings).toEqual([expect.objectContaining({ code: UrlFinding.redirectLoopback, severity: 'info' })]);
  });

  it('treats the redirect_uri of an OAuth request as information: the provider checks it against the client', () => {
    const a = analyzeUrl('https://accounts.google.com/o/oauth2/v2/auth?client_id=1.apps.googleusercontent.com&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&response_type=code&scope=openid', policy);
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
    expect(findingsOf('https://idp.example.org/authorize?redirect_uri=https://evil.example.net/cb', strict).map((f) => f.code)).toContain(UrlFinding.redirectNotAllowed);
  });

  it('allows a listed target, a loopback target and the own site', () => {
    expect(analyzeUrl('https://idp.example.org/authorize?redirect_uri=https://app.example.com/cb', strict).verdict).not.toBe('block');
    expect(analyzeUrl('https://idp.example.org/authorize?redirect_uri=http://127.0.0.1:9000/cb', strict).verdict).toBe('allow');
    expect(analyzeUrl('https://idp.example.org/authorize?next=https://www.example.org/home', strict).verdict).toBe('allow');
  });
});
