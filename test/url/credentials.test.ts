import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/policy/index.js';
import { analyzeUrl, UrlFinding } from '../../src/url/index.js';

const policy = defaultPolicy.base;
const judge = (url: string) => analyzeUrl(url, policy);
const hasCredential = (url: string) => judge(url).findings.some((f) => f.code === UrlFinding.credential);

// Fake, format-valid values assembled at run time.
const jwt = 'eyJhbGciOiJIUzI1NiJ9' + '.eyJzdWIiOiIxMjM0NTY3ODkwIn0' + '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const githubToken = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const stripeKey = 'sk_' + 'live_' + '4eC39HqLyjWDarjtT1zdp7dc';
const awsKey = 'AKIA' + 'IOSFODNN7EXAMPLE';
const randomToken = 'Zk8vQ2pL9xW4rT7yB1nM6cF3';

describe('credentials by parameter name', () => {
  it.each([
    `https://app.example.com/cb?access_token=${randomToken}`,
    `https://app.example.com/cb?id_token=${jwt}`,
    `https://app.example.com/cb?refresh_token=${randomToken}`,
    `https://app.example.com/cb?api_key=${randomToken}`,
    `https://app.example.com/cb?apikey=${randomToken}`,
    `https://app.example.com/cb?client_secret=anything-at-all`,
    'https://app.example.com/login?password=Winter2024',
    'https://app.example.com/login?pwd=hunter2',
    'https://app.example.com/login?passwd=x',
    `https://app.example.com/x?secret=${randomToken}`,
    `https://app.example.com/x?auth=${randomToken}`,
    'https://app.example.com/x?authorization=Basic%20YWRtaW46c2VjcmV0cGFzcw%3D%3D',
    `https://app.example.com/x?bearer=${randomToken}`,
    `https://app.example.com/x?session=${randomToken}`,
    'https://bucket.s3.amazonaws.com/file?X-Amz-Signature=4f2a9c0b7e1d3f5a6b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a',
    `https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=${randomToken}%3D`,
    `https://app.example.com/#access_token=${randomToken}&token_type=bearer`, // implicit flow
    'https://example.com/;jsessionid=5B4EB3301BE91662028003FDDA96503E', // matrix parameter
  ])('%s', (url) => {
    const a = judge(url);
    expect(a.verdict).toBe('block');
    expect(a.findings.map((f) => f.code)).toContain(UrlFinding.credential);
  });

  it('never puts the value in the message', () => {
    const a = judge(`https://app.example.com/cb?access_token=${randomToken}`);
    expect(a.findings[0]?.message).toContain('access_token');
    expect(JSON.stringify(a.findings)).not.toContain(randomToken);
  });

  it.each([
    'https://app.example.com/reset?password=reset', // a flag, not a password
    'https://www.paypal.com/checkoutnow?token=5O190127TN364715T', // an order reference
    'https://checkout.example.com/success?session_id=cs_test_a1kgtyjOZS3fGQuzvexWYU9F7kNnCe6jhRRSVCh2Rop', // a Stripe object id
    'https://www.googleapis.com/youtube/v3/search?pageToken=CAUQAA&part=snippet',
    'https://app.example.com/form?csrf_token=' + randomToken,
    'https://maps.example.com/tile?key=short',
  ])('%s is not a credential', (url) => {
    expect(hasCredential(url)).toBe(false);
  });
});

describe('credentials by shape, whatever the name', () => {
  it.each([
    `https://app.example.com/x?q=${jwt}`,
    `https://app.example.com/x?config=${stripeKey}`,
    `https://app.example.com/x/${githubToken}/view`,
    `https://app.example.com/x#${awsKey}`,
    `https://app.example.com/?next=/dash&${stripeKey}`, // a bare key without "="
    `https://app.example.com/?state=${githubToken}`, // a key prefix blocks even in OAuth state
    `https://app.example.com/?payload=${btoa(JSON.stringify({ k: awsKey })).replace(/=+$/, '')}`, // base64url JSON
    `https://${githubToken.toLowerCase()}.example.com/`, // DNS exfiltration
    `https://${awsKey.toLowerCase()}.example.net/`,
    'https://gitlab.com/api/v4/projects/1/trigger/pipeline/glptt-' + '0123456789abcdef0123456789abcdef01234567',
    'https://relay.example.com/notify?target=' + '123456789:AA' + 'abcdefghijklmnopqrstuvwxyz0123456', // a Telegram bot token
  ])('%s', (url) => {
    expect(hasCredential(url)).toBe(true);
  });

  it('does not mistake a slug for an API key', () => {
    expect(hasCredential('https://blog.example.com/sk-learn-tutorial-for-beginners-with-examples')).toBe(false);
  });

  it('decodes base64url JSON as short as the shortest secret it can hold, and leaves a short cursor alone', () => {
    // `{"` and a Slack app token of 17 characters: 19 characters, 26 in base64 (the decoding is
    // skipped below 22, which give fewer than the 16 characters a secret needs).
    const value = btoa('{"' + 'xapp-1-' + 'AAAAAAAAAA').replace(/=+$/, '');
    expect(value).toHaveLength(26);
    expect(hasCredential(`https://app.example.com/x?data=${value}`)).toBe(true);
    expect(hasCredential(`https://app.example.com/x?data=${value}==`)).toBe(true);
    expect(hasCredential('https://api.example.com/v2/items?cursor=eyJpZCI6MTIzNDU2fQ')).toBe(false);
  });
});

describe('secrets in the path', () => {
  it.each([
    'https://app.example.com/reset-password/WIlEBh3whZWSBlXlKCpocwkKkr8DMQLUlI0RiNF3ST7',
    'https://app.example.com/password/Winter2024!/confirm',
    'https://app.example.com/invite/ab8213af6f464aa8a4bcbeeb59034e9a',
  ])('%s', (url) => {
    expect(hasCredential(url)).toBe(true);
  });

  it.each([
    'https://github.com/settings/tokens/new?scopes=repo',
    'https://app.example.com/account/password/reset',
    'https://docs.google.com/document/d/1I9WSmnyhtmeg074H1dCenfprJ5qquzBda9XsyeiHudu/edit',
    'https://app.example.com/invoices/ab8213af-6f46-4aa8-a4bc-beeb59034e9a?tab=payments',
  ])('%s is not a credential', (url) => {
    expect(hasCredential(url)).toBe(false);
  });
});

describe('pre-authenticated URLs', () => {
  it.each([
    'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    'https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz0123456789',
    'https://api.telegram.org/bot123456789:AAabcdefghijklmnopqrstuvwxyz0123456/getUpdates',
    'https://acme.webhook.office.com/webhookb2/abc@def/IncomingWebhook/123/456',
  ])('%s is itself a secret', (url) => {
    expect(hasCredential(url)).toBe(true);
  });

  it('leaves other pages of the same sites alone', () => {
    expect(hasCredential('https://api.slack.com/messaging/webhooks')).toBe(false);
    expect(hasCredential('https://discord.com/channels/123/456')).toBe(false);
  });
});

describe('OAuth and OIDC authorization requests', () => {
  const google =
    'https://accounts.google.com/o/oauth2/v2/auth?client_id=644728730276-ka0ef9nerbb7ro9txoeyh8t2bwl0pjd9.apps.googleusercontent.com' +
    '&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&response_type=code&scope=openid%20email' +
    '&state=Qyxo5z1hzh2zWPPK60-3l361enRUZcKd&code_challenge=FjsApIAZMsSGgsF-kDj5Q73VYZS9NgvO-Pzxrokx0LE&code_challenge_method=S256' +
    '&nonce=ywx2rQSPCDY0iz0y2vvVOD5p&prompt=consent';

  it('pass: state, nonce and code_challenge are random by design, client_id is public', () => {
    const a = judge(google);
    expect(a.verdict).toBe('allow');
    expect(a.findings.map((f) => f.code)).toEqual([UrlFinding.redirectLoopback]);
  });

  it('accept a signed request object (JAR)', () => {
    const url = `https://login.example.com/authorize?client_id=s6BhdRkqt3&response_type=code&scope=openid&request=${jwt}`;
    expect(hasCredential(url)).toBe(false);
  });

  it('block a code_verifier, which belongs only in the token request', () => {
    expect(hasCredential(`${google}&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk`)).toBe(true);
  });

  it('block an id_token_hint', () => {
    expect(hasCredential(`https://login.example.com/logout?id_token_hint=${jwt}`)).toBe(true);
  });
});

describe('credential names block whatever the value looks like (issue 12)', () => {
  it.each([
    'https://api.example.net/v1/forecast?access_token=demo',
    'https://files.example.net/share?token=abc123',
    'https://status.example.net/embed?api_key=test',
    'https://app.example.net/export.csv?apikey=12345',
    'https://app.example.net/setup?client_secret=secret',
    'https://app.example.net/sso#id_token=short',
    'https://app.example.net/resume?refresh_token=r1',
    'https://app.example.net/open#token=7391',
    'https://app.example.net/page?sid=88231',
    'https://app.example.net/link?otp=482913',
  ])('%s', (url) => {
    expect(hasCredential(url)).toBe(true);
    expect(judge(url).verdict).toBe('block');
  });

  it('keeps flag values and public order tokens out', () => {
    expect(hasCredential('https://app.example.net/?token=')).toBe(false);
    expect(hasCredential('https://app.example.net/?access_token=false')).toBe(false);
    expect(hasCredential('https://www.paypal.com/checkoutnow?token=5O190127TN364715T')).toBe(false);
    expect(hasCredential('https://www.paypal.com/cgi-bin/webscr?cmd=_express-checkout&token=EC-60U79048BN7719609')).toBe(false);
    expect(hasCredential('https://www.youtube.com/results?search_query=oauth&pageToken=CDIQAA')).toBe(false);
    expect(hasCredential('https://docs.example.net/table?key=created_at&order=desc')).toBe(false);
  });
});

describe('OAuth authorization responses (issue 12)', () => {
  it.each([
    'https://client.example.com/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz',
    'https://client.example.com/cb?code=x1848ZT64p4IirMPT0R-X3141MFPTuBX-VFL_cvaplMH58&iss=https%3A%2F%2Fhonest.as.example',
    'https://app.example.net/oauth/callback?code=4%2F0AeaYSHBxyz',
    'https://client.example.org/cb#code=SplxlOBeZQQYbYS6WxSbIA&state=n-0S6_WzA2Mj',
  ])('blocks %s as a pre-authenticated bearer', (url) => {
    const a = judge(url);
    expect(a.verdict).toBe('block');
    expect(a.findings.find((f) => f.code === UrlFinding.credential)?.message).toMatch(/authorization response/);
  });

  it('lets the authorization request and a promo code through', () => {
    expect(
      judge(
        'https://accounts.google.com/o/oauth2/v2/auth?client_id=1.apps.googleusercontent.com&' +
          'redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&response_type=code&scope=openid&state=abc&' +
          'code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256',
      ).verdict,
    ).not.toBe('block');
    expect(judge('https://shop.example.net/checkout?code=WINTER25').verdict).toBe('allow');
    expect(judge('https://server.example.com/authorize?client_id=s6BhdRkqt3&request=' + jwt).verdict).not.toBe('block');
  });
});

describe('key prefixes by prefix and alphabet, not by length (issue 12)', () => {
  it.each([
    ['ghs_', 't9EgrENwD0EGoef95uel'],
    ['ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3'],
    ['EAAB', 'MMNc75g1vfgs6yxokGdygIUnvtZPOmBtboBGY'],
    ['glpat-', 'x1Y2z3W4v5U6t7S8'],
    ['hf_', 'a1B2c3D4e5F6g7H8i'],
  ])('%s with a short body', (prefix, body) => {
    expect(hasCredential(`https://ci.example.net/badge?t=${prefix}${body}`)).toBe(true);
  });

  it('does not read a slug or prose as a key', () => {
    expect(hasCredential('https://blog.example.net/?t=sk-learn-tutorial-for-beginners')).toBe(false);
    expect(hasCredential('https://blog.example.net/?t=hf_short')).toBe(false);
  });
});
