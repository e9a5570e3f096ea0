import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePolicy, type Policy } from '../../src/policy/index.js';
import { analyzeUrl } from '../../src/url/index.js';
import { analyzeUrl as referenceAnalyzeUrl } from './reference/url/index.js';
import { setFiltersAlwaysMaybe } from './reference/url/lookalike.js';
import { BRAND_ALIASES, CURATED_PROTECTED_DOMAINS, toProtectedSite } from './reference/url/protected.js';
import { runCount } from '../properties/runs.js';
import { syntheticProtectedDomains } from '../../bench/url.bench.js';
import { corpusHosts } from '../helpers/corpora.js';
import { fixtureUrls } from '../helpers/fixture-urls.js';

const POLICY_DOMAINS = syntheticProtectedDomains(5000);
const POLICIES: readonly (readonly [string, Policy])[] = [
  ['default', parsePolicy({}).base],
  ['5,000 protected domains', parsePolicy({ url: { protectedDomains: POLICY_DOMAINS } }).base],
];

/** The site names the rules pair lures with: curated labels, product aliases, some of the policy's. */
const BRANDS = [
  ...new Set([
    ...CURATED_PROTECTED_DOMAINS.map((d) => toProtectedSite(d, true)?.label ?? ''),
    ...BRAND_ALIASES.keys(),
    ...POLICY_DOMAINS.slice(0, 40).map((d) => toProtectedSite(d, true)?.label ?? ''),
  ]),
].filter((b) => b.length >= 3);

/** Hosts built to reach each rule behind a gate, for every brand. */
function constructedHosts(): string[] {
  const out: string[] = [];
  for (const b of BRANDS) {
    out.push(
      // A brand glued to `id` (`appleid`), alone, hyphenated and with other whole-token lures.
      `${b}id.com`,
      `${b}id.net`,
      `${b}id.org`,
      `${b}id-${b}.com`,
      `${b}id-online.net`,
      `my-${b}id.io`,
      `kyc${b}id.com`,
      `free${b}-squid.com`,
      `docs${b}-paid.net`,
      `${b}otp-id.com`,
      `login.${b}id.com`,
      `${b}id.qzx.com`,
      // "www" glued to a brand, to a brand token, to an embedded brand and suffix.
      `www${b}.com`,
      `www-${b}.com`,
      `www-${b}.net`,
      `www${b}-com.info`,
      `www${b}.com.qzx.net`,
      `www${b}-com.qzx.net`,
      `www-${b}-com.qzx.net`,
      `www${b}.qzx.net`,
      `a.www${b}.com.qzx.org`,
      `www${b}com.qzx.net`,
      `www${b}.login.qzx.net`,
      // The rest of the rules, for comparison.
      `${b}com.net`,
      `${b}.com.qzx.net`,
      `${b}-com.qzx.net`,
      `${b}.qzx.net`,
      `${b}.xyz`,
      `${b}-login.com`,
      // A brand glued to a keyword, before or after it, alone and next to another part.
      `${b}support.com`,
      `secure${b}.net`,
      `my-${b}login.org`,
    );
    // A brand split by a hyphen next to a keyword (`pay-pal-login`): at every cut of a short brand
    // (three letters, which no four-letter window holds), in the middle of a longer one.
    const cuts = b.length <= 4 ? Array.from({ length: b.length - 1 }, (_, i) => i + 1) : [b.length >> 1];
    for (const cut of cuts) out.push(`${b.slice(0, cut)}-${b.slice(cut)}-login.com`, `secure-${b.slice(0, cut)}-${b.slice(cut)}.net`);
  }
  return out;
}

const piece = fc.constantFrom(
  ...BRANDS.slice(0, 60),
  'id',
  'www',
  'kyc',
  'free',
  'docs',
  'otp',
  'mfa',
  'login',
  'secure',
  'paid',
  'squid',
  'com',
  'net',
  '-',
  '.',
  '_',
  '0',
  '1',
  'rn',
  'а',
);
const suffix = fc.constantFrom('com', 'net', 'org', 'io', 'co.uk', 'xyz', 'top', 'de', 'info', 'github.io');

/** Hosts assembled from the pieces, and real hosts with a piece inserted somewhere. */
function fuzzedHosts(count: number, realHosts: readonly string[]): string[] {
  const assembled = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 5 }), suffix).map(([parts, s]) => `${parts.join('')}.${s}`);
  const mutated = fc.tuple(fc.nat({ max: Math.max(0, realHosts.length - 1) }), fc.nat({ max: 40 }), piece).map(([i, at, p]) => {
    const host = realHosts[i] ?? 'example.com';
    const cut = Math.min(at, host.length);
    return `${host.slice(0, cut)}${p}${host.slice(cut)}`;
  });
  return fc.sample(fc.oneof({ weight: 2, arbitrary: assembled }, { weight: 1, arbitrary: mutated }), { numRuns: count, seed: 0x1d5 });
}

/** The URLs whose three results differ, with the three verdicts and codes. */
function differences(urls: readonly string[], policy: Policy): string[] {
  const summary = (a: ReturnType<typeof analyzeUrl>) => `${a.verdict} ${JSON.stringify(a.findings.map((f) => f.code))}`;
  const engine = urls.map((url) => JSON.stringify(analyzeUrl(url, policy)));
  const filtered = urls.map((url) => JSON.stringify(referenceAnalyzeUrl(url, policy)));
  setFiltersAlwaysMaybe(true);
  const out: string[] = [];
  try {
    for (let i = 0; i < urls.length && out.length < 20; i++) {
      const unfiltered = JSON.stringify(referenceAnalyzeUrl(urls[i]!, policy));
      if (unfiltered === filtered[i] && unfiltered === engine[i]) continue;
      out.push(
        `${urls[i]}\n  no filters: ${summary(JSON.parse(unfiltered))}\n  reference:  ${summary(JSON.parse(filtered[i]!))}\n` +
          `  engine:     ${summary(JSON.parse(engine[i]!))}`,
      );
    }
  } finally {
    setFiltersAlwaysMaybe(false);
  }
  return out;
}

describe('the look-alike gates skip only hosts no rule can match', () => {
  afterEach(() => setFiltersAlwaysMaybe(false));

  it.each(POLICIES)('on hosts built to reach the rules behind the gates (%s)', (_name, policy) => {
    const urls = constructedHosts().map((h) => `https://${h}/`);
    expect(urls.length).toBeGreaterThan(1000);
    expect(differences(urls, policy)).toEqual([]);
  });

  it.each(POLICIES)(
    'on fuzzed hosts of brands, lures and "www" (%s)',
    (_name, policy) => {
      const real = corpusHosts();
      const hosts = fuzzedHosts(runCount(6000), real.length > 0 ? real : ['example.com', 'paypal.com', 'münchen.de']);
      expect(
        differences(
          hosts.map((h) => `https://${h}/`),
          policy,
        ),
      ).toEqual([]);
    },
    120_000,
  );

  it.each(POLICIES)(
    'on every fixture URL (%s)',
    (_name, policy) => {
      const urls = fixtureUrls();
      expect(urls.length).toBeGreaterThan(1000);
      expect(differences(urls, policy)).toEqual([]);
    },
    120_000,
  );

  it.skipIf(corpusHosts().length === 0).each(POLICIES)(
    'on every shared-corpus host (%s)',
    (_name, policy) => {
      expect(
        differences(
          corpusHosts().map((h) => `https://${h}/`),
          policy,
        ),
      ).toEqual([]);
    },
    240_000,
  );
});
