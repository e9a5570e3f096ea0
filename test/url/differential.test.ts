/**
 * The optimised `analyzeUrl` against the reference engine kept in `test/url/reference/` (a copy of
 * the straightforward implementation of the same rules): identical results, findings and display
 * included, on every corpus URL and on a fuzzing corpus of mutated URLs, under policies with and
 * without extra protected domains (issue 17: caches, pre-filters and gates must not change a verdict).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicy, type Policy } from '../../src/policy/index.js';
import { analyzeUrl } from '../../src/url/index.js';
import { analyzeUrl as referenceAnalyzeUrl } from './reference/url/index.js';
import { runCount } from '../properties/runs.js';
import { syntheticProtectedDomains } from '../../bench/url.bench.js';
import { corpusHosts } from '../helpers/corpora.js';
import { fixtureUrls } from '../helpers/fixture-urls.js';

/** The corpora whose hosts the differential runs over (the IDN public-suffix list is judged in corpora.test.ts). */
const CORPUS_FILES = ['legit-domains.txt', 'legit-hosts-umbrella.txt', 'legit-idn.txt'];
const FIXTURES = new URL('../../fixtures/urls/', import.meta.url);

const TAILS = [
  '/',
  '/path?q=1#f',
  '/login?next=https%3A%2F%2Fother.example.net%2F',
  '/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz',
  '/a/b;jsessionid=0123456789abcdef0123',
  '#access_token=abc123&state=x',
  '/track?address=1+Main+St&zip=94043',
];

const POLICY_DOMAINS = syntheticProtectedDomains(300);
const POLICIES: readonly (readonly [string, Policy])[] = [
  ['default', parsePolicy({}).base],
  ['300 protected domains', parsePolicy({ url: { protectedDomains: POLICY_DOMAINS } }).base],
  // The benchmark's largest list: the prefilter and the policy index at their full size.
  ['5,000 protected domains', parsePolicy({ url: { protectedDomains: syntheticProtectedDomains(5000) } }).base],
  ['allow and redirect lists', parsePolicy({ url: { allowedHosts: ['example.com', 'github.com'], redirectHosts: ['example.net'] } }).base],
];

function sameResults(urls: readonly string[], policy: Policy): string[] {
  const differences: string[] = [];
  for (const url of urls) {
    const a = analyzeUrl(url, policy);
    const b = referenceAnalyzeUrl(url, policy);
    if (JSON.stringify(a) !== JSON.stringify(b))
      differences.push(
        `${JSON.stringify(url).slice(0, 160)}\n  new: ${JSON.stringify(a.findings.map((f) => f.code))} ${a.verdict}\n  ` +
          `ref: ${JSON.stringify(b.findings.map((f) => f.code))} ${b.verdict}`,
      );
    if (differences.length >= 20) break;
  }
  return differences;
}

// Mutations a look-alike or a leak is made of: confusable letters, delimiter look-alikes,
// joiners, brand tokens (built-in and policy), secret-named parameters, encodings.
const BRANDS = [
  'paypal',
  'github',
  'google',
  'microsoft',
  'apple',
  'coinbase',
  ...POLICY_DOMAINS.slice(0, 20).map((d) => d.split('.')[0]!),
];
const piece = fc.constantFrom(
  'а',
  'о',
  'е',
  'і',
  'ѕ',
  'ӏ',
  'ο',
  'ν',
  '0',
  '1',
  'rn',
  'vv',
  '-',
  '_',
  '.',
  '∕',
  '⁄',
  '꞉',
  '·',
  '。',
  '–',
  'xn--',
  '%2e',
  '@',
  '\\',
  '\u200b',
  ...BRANDS,
  'login',
  'secure',
  'support',
  'com',
  'net',
  'co.uk',
  'www',
);
const tail = fc.constantFrom(
  ...TAILS,
  '/?token=abc',
  '/?url=https://paypa1.com/',
  '/?r=aHR0cHM6Ly9ldmlsLmV4YW1wbGUubmV0Lw==',
  '/?key=AIzaSyA1234567890abcdefghijklmnopqrstu',
  '/?client_id=x&redirect_uri=https://a.example.org/cb&state=s',
);
// Values the content gate must read like the rules do: digits, e-mail hints, IBAN and card shapes,
// base64 (of text with and without an `@`), prefixed keys, escapes, blanks at the edges.
const valuePiece = fc.constantFrom(
  '0',
  '12',
  '4242',
  '555-0100',
  '+1',
  '(',
  '[',
  '@',
  '(at)',
  ' ',
  '%20',
  '%40',
  '+',
  'DE89',
  '3704',
  'GB',
  'a',
  'aHR0cHM6Ly9',
  'b3BzLXRlYW1AY29ycC5leGFtcGxl',
  'bm90aGluZyB0byBzZWU',
  '==',
  '-',
  '_',
  'sk',
  'gh',
  'p_',
  'abcdefgh',
  'WXYZ',
  'eyJ',
);
const valueTail = fc
  .tuple(
    fc.constantFrom('/?v=', '/?id=', '/?ref=', '/?x_y=', '/p/', '/#', '/?a=1&b=', '/reset/', '/;k=', '/?iban=', '/?phone='),
    fc.array(valuePiece, { minLength: 1, maxLength: 6 }),
  )
  .map(([head, parts]) => head + parts.join(''));
const suffix = fc.constantFrom('com', 'net', 'org', 'io', 'co.uk', 'xyz', 'top', 'de', 'pages.dev', 'github.io', 'рф');

/** A deterministic fuzzing corpus: hosts assembled from pieces, plus mutations of real hosts. */
function fuzzCorpus(realHosts: readonly string[], count: number): string[] {
  const assembled = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 5 }), suffix, tail)
    .map(([parts, s, t]) => `https://${parts.join('')}.${s}${t}`);
  const mutated = fc.tuple(fc.nat({ max: Math.max(0, realHosts.length - 1) }), fc.nat({ max: 40 }), piece, tail).map(([i, at, p, t]) => {
    const host = realHosts[i] ?? 'example.com';
    const cut = Math.min(at, host.length);
    return `https://${host.slice(0, cut)}${p}${host.slice(cut)}${t}`;
  });
  const raw = fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.string({ maxLength: 60 }).map((s) => `https://${s}`),
  );
  const content = fc
    .tuple(fc.nat({ max: Math.max(0, realHosts.length - 1) }), valueTail)
    .map(([i, t]) => `https://${realHosts[i] ?? 'example.com'}${t}`);
  const arbitraries = [
    { weight: 3, arbitrary: assembled },
    { weight: 3, arbitrary: mutated },
    { weight: 2, arbitrary: content },
    { weight: 1, arbitrary: raw },
  ];
  return fc.sample(fc.oneof(...arbitraries), {
    numRuns: count,
    seed: 0x12b,
  });
}

/**
 * URLs at the edges of the content gate (`valueMayCarryData` in `src/url/content.ts`): the
 * shortest value each value rule reads, under a name no list knows. Each one blocks, so a gate
 * that skipped it would show here.
 */
const GATE_EDGES = [
  'https://example.com/?v=eHlhYkBtYWlsLnJ1', // 16 characters of base64 with one digit: xyab@mail.ru
  'https://example.com/p/eHlhYkBtYWlsLnJ1',
  'https://example.com/#eHlhYkBtYWlsLnJ1',
  'https://example.com/?v=DE65ABCDEFGHAAA', // an IBAN of 15 characters with two digits
  'https://example.com/?v=xoxb-ABCdefGHIj', // a prefixed key of 15 characters without digits
  'https://example.com/?v=aHR0cDovL2E=', // 12 characters of base64: http://a
  'https://example.com/?v=a@b.co', // an e-mail address of 6 characters
  'https://example.com/?v=x(at)b.co',
  'https://example.com/?v=x[at]b.co',
  'https://example.com/?v=4242+4242+4242+4242', // a grouped card number, `+` read as a space
  'https://example.com/?v=%2B1%20415%20555%202671', // a phone number only once decoded
  'https://example.com/?v=415-555-2671', // phone numbers of 12 characters
  'https://example.com/p/+14155552671',
  'https://example.com/?v=%2B14155552671',
  'https://example.com/?xoxb-ABCdefGHIj=1', // a name that is a prefixed key of 15 characters
  'https://example.com/#/r?xoxb-ABCdefGHIj=1',
  'https://example.com/?AKIAIOSFODNN7EXAMPLE=1', // a name that is a key of 20 characters
];

/**
 * URLs the content gate's text scan (`quietTail`) reads without cutting parts, next to the ones
 * it must leave to the full path: `+` in names and values, a `code` under a name spelled with
 * separators, a secret-naming path segment before a short value, matrix parameters.
 */
const QUIET_EDGES = [
  'https://example.com/?access+token=x',
  'https://example.com/?v=+hp_abcdefghijk',
  'https://example.com/?v=g+p_abcdefghijk',
  'https://example.com/?v=ghp_abcdefghij+',
  'https://example.com/?C+o-d_e=abc&state=1',
  'https://example.com/cb?Code=abc',
  'https://example.com/#code=abc&state=1',
  'https://example.com/#/route?code=abc&state=xyz',
  'https://example.com/reset/abc',
  'https://example.com/Reset-Password/abc',
  'https://example.com/api-key/abc',
  'https://example.com/app;jsessionid=abc',
  'https://example.com/?q=a+b&page=2',
  'https://example.com/?q=1234+567',
  'https://example.com/?x=a+b+c+d+e+f+g+h+i',
];

/**
 * URLs at the edges of the one-pass content gate (`src/url/gate.ts`): escapes that change a
 * name's key or a segment's context (a Kelvin sign lower-cases to `k`), matrix parameters in
 * several segments, parts past the 256-part cap, `code` and `state` in the query and the
 * fragment, phone numbers whose `+` and separators only show once decoded, and redirect targets
 * that are and are not already canonical.
 */
const PASS_EDGES = [
  'https://example.com/a;x=1/b;jsessionid=0123456789abcdef0123/c',
  'https://example.com/;k=v/password/Winter2024!',
  'https://example.com/Reset%2DPassword/abc123def456',
  'https://example.com/%70assword/Winter2024!',
  'https://example.com/%E2%84%AAey/AbCdEf0123456789',
  'https://example.com/\u212Aey/AbCdEf0123456789',
  'https://example.com/?%70assword=x',
  'https://example.com/?Client%5FId=x&Redirect%5FUri=https://a.example.org/cb&state=s',
  'https://example.com/cb#code=abcdef&state=1',
  'https://example.com/?state=1#code=abcdef',
  'https://example.com/?code=ab&state=1',
  'https://example.com/?code=reset&iss=x',
  `https://example.com/?${'a=1&'.repeat(300)}password=hunter2`,
  `https://example.com/?${'a=1&'.repeat(254)}password=hunter2`,
  `https://example.com/?${'a=1&'.repeat(260)}#token=abc`,
  `https://example.com/${'x/'.repeat(300)}AKIAIOSFODNN7EXAMPLE`,
  `https://example.com/${'x;y=1/'.repeat(130)}password/Winter2024!`,
  'https://example.com/?r=aHR0cHM6Ly9ldmlsLmV4YW1wbGUubmV0Lw%3D%3D',
  'https://example.com/?next=https%3A%2F%2Fother.example.net%2F%3Fa%3D1',
  'https://example.com/?next=https://other.example.net/cb',
  'https://example.com/?next=https://Other.Example.net:443/cb',
  'https://example.com/?next=//other.example.net/cb',
  'https://example.com/?q=a%2Bb%40c.example',
  'https://example.com/?phone=%2B1+415+555+2671',
  'https://example.com/?v=+1+415+555+2671',
  'https://example.com/?v=+14155552671',
  'https://example.com/?v=%2B14155552671',
  'https://example.com/?v=0612345678+90',
  'https://example.com/?v=06+12+34+56+78',
  'https://example.com/?v=06-12-34-56-78',
  'https://example.com/?v=415.555.2671',
  'https://example.com/?v=415%C2%A0555%C2%A02671',
  'https://example.com/?v=06%E2%80%8312%E2%80%8334%E2%80%8356%E2%80%8378',
  'https://example.com/?state=Qyxo5z1hzh2zWPPK60-3l361enRUZcKd&v=a%40b.example',
  // The path, query and fragment read where they stand in `href`, next to a lone `?` or `#`
  // (which `search` and `hash` leave out), in canonical and in parsed URLs.
  'https://example.com/?password=reset#',
  'https://example.com/?password=Winter2024#',
  'https://example.com/?password=Winter2024#x',
  'https://EXAMPLE.com/?password=Winter2024#',
  'https://example.com:8443/a?password=Winter2024#',
  'https://example.com/a?#password=Winter2024',
  'https://EXAMPLE.com/a?#password=reset&token=abc',
  'https://example.com/?#',
  'https://example.com/password/reset?',
  'https://example.com/password/reset?#',
  'https://EXAMPLE.com/password/reset?#x',
  'https://example.com/password/reset#',
  'https://example.com/password/Winter2024?x=1',
  'https://example.com/password/reset?next=/home',
  'https://example.com/cb?code=abcdef#state=1',
  'https://example.com/a?x=1#ghp_abcdefghijklmnopqrstuvwxyz0123456789',
];

/**
 * Names the gate reads once per name (`NameInfo.secret`, looked up in place when written without
 * escapes): long names that are and are not secret-shaped, the same names escaped or in another
 * case; and redirect targets to this computer, read without the parser only when they are what
 * the parser would give back (`loopbackTarget` in `src/url/redirects.ts`), and targets nested to
 * the depth limit.
 */
const NAME_AND_TARGET_EDGES = [
  'https://example.com/?code_challenge_method=S256&include_granted_scopes=true',
  'https://example.com/?AKIAIOSFODNN7EXAMPLE=1&akiaiosfodnn7example=1',
  'https://example.com/?%41KIAIOSFODNN7EXAMPLE=1',
  'https://example.com/?AKIAIOSFODNN7EXAMPL%45=1',
  'https://example.com/?ghp_abcdefghijklmnopqrstuvwxyz0123456789=1',
  'https://example.com/?ghp_abcdefghijk=1&ghp_abcdefghijk=2',
  'https://example.com/?eyJhbGciOiJIUzI1NiJ9eyJzdWIiOiJ4In0=1',
  'https://example.com/?a+KIAIOSFODNN7EXAMPLE=1',
  'https://example.com/?client_id=x&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&state=s',
  'https://example.com/?client_id=x&redirect_uri=http://localhost:8976/cb&state=s',
  'https://example.com/?redirect_uri=http://[::1]:8765/',
  'https://example.com/?redirect_uri=https://localhost:3000',
  'https://example.com/?next=http://localhost:65535/',
  'https://example.com/?next=http://localhost:65536/',
  'https://example.com/?next=http://localhost:99999/',
  'https://example.com/?next=http://127.0.0.1:0/#x',
  'https://example.com/?next=http://localhost:/cb',
  'https://example.com/?next=http://localhost:8080@evil.example.net/',
  'https://example.com/?next=http://localhost@evil.example.net/',
  'https://example.com/?next=http://localhost:80%5Cevil.example.net/',
  'https://example.com/?next=http://localhost.evil.example.net:8080/',
  'https://example.com/?next=http://127.0.0.1.evil.example.net:8080/',
  'https://example.com/?next=http://LOCALHOST:8080/',
  'https://example.com/?next=HTTP://localhost:8080/',
  'https://example.com/?next=http://127.0.0.1:8080?x=1',
  'https://example.com/?next=http%253A%252F%252Flocalhost%253A8080%252F',
  'https://example.com/?next=javascript://localhost:8080/%0Aalert(1)',
  'https://example.com/?v=aHR0cDovL2xvY2FsaG9zdDo4MDgwLw',
  'https://example.com/?next=https://a.example.org/?next=https://b.example.net/?next=https://paypa1.com/',
  'https://example.com/?next=https%3A%2F%2Fa.example.org%2F%3Fnext%3Dhttps%253A%252F%252Fpaypa1.com%252F',
  // Redirect-like names whose values the gate lets through only when they can be a URL (short
  // values, which no value rule reads).
  'https://example.com/?next=//e.co&u=+//e.co&r=%2F%2Fe.co&to=%5C%5Ce.co',
  'https://example.com/?next=javascript:1',
  'https://example.com/?url=data:,x',
  'https://example.com/?go=http:e.co',
  'https://example.com/?next=%C2%A0//e.co',
  'https://example.com/#next=//e.co',
  'https://example.com/a;next=//e.co',
  // Escaped values the gate reads in place (ASCII escapes) or decodes (UTF-8, broken escapes).
  'https://example.com/?next=%2Fdashboard&to=%2B%2F%2Fe.co&u=%20%2F%2Fe.co&r=%09//e.co&go=%2F+%2Fe.co',
  'https://example.com/?url=javascript%3A1&q=a%3Ab&link=%25',
  'https://example.com/?v=%78oxb-ABCdefGHIj',
  'https://example.com/?v=a%40b.co',
  'https://example.com/?v=%44E65ABCDEFGHAAA',
  'https://example.com/?v=%61HR0cDovL2E%3D',
  'https://example.com/?v=41555%352671',
  'https://example.com/?v=%E2%82%AC1234567&w=%zz1234567&x=%4',
  'https://example.com/#v=%78oxb-ABCdefGHIj',
  'https://example.com/a;v=%78oxb-ABCdefGHIj',
  'https://example.com/?next=/dashboard&q=1&url=x',
  'https://example.com/?next=//evil.example.net/',
  'https://example.com/?next=+//evil.example.net/',
  'https://example.com/?next=++/%5Cevil.example.net/',
  'https://example.com/?next=/\\evil.example.net/',
  'https://example.com/?next=%2F%2Fevil.example.net/',
  'https://example.com/?next=%C2%A0//evil.example.net/',
  'https://example.com/?next=%E3%80%80//evil.example.net/',
  'https://example.com/?next=javascript:alert(1)',
  'https://example.com/?url=data:text/html,x&to=/x',
  'https://example.com/#next=//evil.example.net/',
  'https://example.com/#/route?next=//evil.example.net/',
  'https://example.com/a;next=//evil.example.net/',
];

/** The benchmark's OAuth authorization tails (`fixtures/urls/legitimate.jsonl`) on corpus hosts. */
function oauthTails(): string[] {
  const out: string[] = [];
  for (const line of readFileSync(new URL('legitimate.jsonl', FIXTURES), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { url: string; category: string };
    if (row.category !== 'oauth-authorize') continue;
    const u = new URL(row.url);
    out.push(u.pathname + u.search + u.hash);
  }
  return out;
}

/** Payment values at the digit counts the payment rules need (13 for a card, 3 for a code, 6 for an account, 2 for an IBAN). */
const PAYMENT_EDGES = [
  'https://example.com/?cc=4222222222222',
  'https://example.com/?v=4222%202222%202222%202',
  'https://example.com/?v=4222-2222-2222-2',
  'https://example.com/?cc=422222222222',
  'https://example.com/?cvv=123&cvc=12',
  'https://example.com/?account_number=123456&routing_number=12345',
  'https://example.com/?v=DE65ABCDEFGHAAA&w=D%C4%9E65ABCDEFGHAAA',
  'https://example.com/p/4222222222222;cc=4222222222222',
];

/**
 * Values of 16 characters or more that the secret screen reads whole and counts for the
 * personal-data rules (`mayHoldSecretCounting`): each census field decides one of them.
 */
const CENSUS_EDGES = [
  'https://example.com/?v=ruf%2006%2010%2020%2030%2040%20an', // zeros count as digits
  'https://example.com/?v=call%20%2B14155552671%20now', // a `+` the value itself holds
  'https://example.com/?v=tel:415.555.2671,ok', // dots as separators
  'https://example.com/?v=write%20alice(at)example.com%20now', // a hint character
  'https://example.com/?v=4000%200000%200000%200002', // a card number of zeros
  'https://example.com/?dob=born%20on%201990-01-01',
  'https://example.com/?account_number=acct%20000000000',
  'https://example.com/?v=DE89370400440532013000',
  'https://example.com/?v=nothing%20to%20see%20here%20at%20all',
  'https://example.com/?v=ghp_abcdefghijklmnopqrstuvwxyz0123456789&w=4242+4242+4242+4242',
];

describe('analyzeUrl matches the reference engine', () => {
  it.each(POLICIES)('on values whose census the secret screen counts (%s)', (_name, policy) => {
    expect(CENSUS_EDGES.filter((url) => referenceAnalyzeUrl(url, policy).verdict === 'block').length).toBeGreaterThan(6);
    expect(sameResults(CENSUS_EDGES, policy)).toEqual([]);
  });

  it.each(POLICIES)('on payment values at the digit counts their rules need (%s)', (_name, policy) => {
    expect(PAYMENT_EDGES.filter((url) => referenceAnalyzeUrl(url, policy).verdict === 'block').length).toBeGreaterThan(4);
    expect(sameResults(PAYMENT_EDGES, policy)).toEqual([]);
  });

  it.each(POLICIES)('at the edges of the one-pass content gate (%s)', (_name, policy) => {
    expect(sameResults(PASS_EDGES, policy)).toEqual([]);
  });

  it.each(POLICIES)('on names read once per name and on loopback and nested redirect targets (%s)', (_name, policy) => {
    expect(sameResults(NAME_AND_TARGET_EDGES, policy)).toEqual([]);
  });

  it.skipIf(corpusHosts(CORPUS_FILES).length === 0).each(POLICIES)(
    'on OAuth authorization requests sent from corpus hosts (%s)',
    (_name, policy) => {
      const hosts = corpusHosts(CORPUS_FILES);
      const tails = oauthTails();
      expect(tails.length).toBeGreaterThan(50);
      const urls = tails.flatMap((tail, i) => [0, 1, 2].map((k) => `https://${hosts[(i * 37 + k * 1009) % hosts.length]}${tail}`));
      expect(sameResults(urls, policy)).toEqual([]);
    },
    120_000,
  );

  it.each(POLICIES)('at the edges of the content gate (%s)', (_name, policy) => {
    for (const url of GATE_EDGES) expect(referenceAnalyzeUrl(url, policy).verdict, url).toBe('block');
    expect(sameResults(GATE_EDGES, policy)).toEqual([]);
    expect(sameResults(QUIET_EDGES, policy)).toEqual([]);
  });

  const urls = fixtureUrls();
  const hosts = corpusHosts(CORPUS_FILES);
  const corpusUrls = hosts.map((h, i) => `https://${h}${TAILS[i % TAILS.length]}`);

  it.each(POLICIES)('on every fixture URL (%s)', (_name, policy) => {
    expect(urls.length).toBeGreaterThan(1000);
    expect(sameResults(urls, policy)).toEqual([]);
  });

  it.skipIf(hosts.length === 0).each(POLICIES)(
    'on every shared-corpus URL (%s)',
    (_name, policy) => {
      expect(sameResults(corpusUrls, policy)).toEqual([]);
    },
    120_000,
  );

  it.each(POLICIES)(
    'on the fuzzing corpus (%s)',
    (_name, policy) => {
      const urls = fuzzCorpus(hosts.length > 0 ? hosts : ['example.com', 'paypal.com', 'münchen.de'], runCount(4000));
      expect(sameResults(urls, policy)).toEqual([]);
    },
    120_000,
  );
});
