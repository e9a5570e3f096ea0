import { describe, expect, it } from 'vitest';
import topSites from '../../src/url/data/top-sites.json' with { type: 'json' };
import { readFileSync } from 'node:fs';
import {
  BUILT_IN_SITES,
  CHROMIUM_TOP_DOMAINS_SOURCE,
  CURATED_PROTECTED_DOMAINS,
  isProtectedDomain,
  protectedDomains,
  skeletonOnlySites,
  TOP_SITES_SOURCE,
  toProtectedSite,
} from '../../src/url/protected.js';

describe('the built-in protected list', () => {
  it('holds the curated identity, payment, code-hosting and cloud providers', () => {
    for (const domain of [
      'google.com',
      'microsoftonline.com',
      'live.com',
      'apple.com',
      'icloud.com',
      'github.com',
      'gitlab.com',
      'okta.com',
      'auth0.com',
      'paypal.com',
      'stripe.com',
      'coinbase.com',
      'binance.com',
      'amazon.com',
      'cloudflare.com',
      'slack.com',
      'atlassian.com',
      'dropbox.com',
      'salesforce.com',
      'facebook.com',
      'x.com',
      'linkedin.com',
      'chase.com',
    ]) {
      expect(BUILT_IN_SITES.has(domain), domain).toBe(true);
    }
  });

  it('adds the top-sites snapshot reduced to registrable domains', () => {
    expect(TOP_SITES_SOURCE).toMatch(/^top-sites@\d+\.\d+\.\d+$/);
    expect((topSites as { domains: string[] }).domains).toContain('www.google.com');
    expect(BUILT_IN_SITES.has('www.google.com')).toBe(false);
    expect(BUILT_IN_SITES.has('wikipedia.org')).toBe(true);
    expect(BUILT_IN_SITES.get('blogspot.com')?.label).toBe('blogspot');
    expect(BUILT_IN_SITES.size).toBeGreaterThan(CURATED_PROTECTED_DOMAINS.length + 300);
  });

  it('reduces entries to the registrable domain, with the PSL suffix', () => {
    expect(toProtectedSite('accounts.google.co.uk', false)).toMatchObject({ domain: 'google.co.uk', label: 'google', suffix: 'co.uk' });
    expect(toProtectedSite('127.0.0.1', false)).toBeNull();
    expect(toProtectedSite('com', false)).toBeNull();
  });
});

describe('isProtectedDomain', () => {
  it('covers a protected domain and its subdomains, in any case or form', () => {
    expect(isProtectedDomain('paypal.com')).toBe(true);
    expect(isProtectedDomain('WWW.PayPal.com')).toBe(true);
    expect(isProtectedDomain('login.microsoftonline.com')).toBe(true);
  });

  it('does not cover look-alikes or unrelated hosts', () => {
    expect(isProtectedDomain('paypal.com.evil.net')).toBe(false);
    expect(isProtectedDomain('pаypal.com')).toBe(false);
    expect(isProtectedDomain('example.org')).toBe(false);
  });

  it('adds the policy domains', () => {
    expect(isProtectedDomain('login.acmecorp.com')).toBe(false);
    expect(isProtectedDomain('login.acmecorp.com', ['acmecorp.com'])).toBe(true);
  });
});

describe('protectedDomains', () => {
  it('lists built-in and extra domains once, sorted', () => {
    const list = protectedDomains(['www.acmecorp.com']);
    expect(list).toContain('acmecorp.com');
    expect(list).toContain('paypal.com');
    expect(list).toEqual([...list].sort());
    expect(new Set(list).size).toBe(list.length);
  });
});

describe("Chromium's top-domain list (vendored, BSD-3-Clause)", () => {
  const list = readFileSync(new URL('../../src/url/data/chromium-top-domains.list', import.meta.url), 'utf8');
  const json = JSON.parse(readFileSync(new URL('../../src/url/data/chromium-top-domains.json', import.meta.url), 'utf8')) as {
    top: string[];
    rest: string[];
    licenseText: string;
    revision: string;
  };

  it('ships the list as Chromium has it, the JSON the engine loads made from it, and the license with the data', () => {
    const lines = list.split('\n').filter((l) => l.trim() !== '' && (!l.startsWith('#') || l.startsWith('###END')));
    const marker = lines.indexOf('###END_TOP_BUCKET###');
    expect(marker).toBeGreaterThan(400);
    expect(json.top).toEqual(lines.slice(0, marker));
    expect(json.rest).toEqual(lines.slice(marker + 1));
    expect(json.top.length + json.rest.length).toBeGreaterThan(4500);
    expect(json.licenseText).toMatch(/Copyright 2015 The Chromium Authors/);
    expect(json.licenseText).toMatch(/Redistribution and use in source and binary forms/);
    expect(CHROMIUM_TOP_DOMAINS_SOURCE).toContain(json.revision);
  });

  it('protects the whole list against homographs and its top bucket against everything', () => {
    expect(protectedDomains()).toEqual(expect.arrayContaining(['airbnb.com', 'booking.com', 'zillow.com', 'asos.com']));
    expect(BUILT_IN_SITES.has('wikipedia.org')).toBe(true);
    expect(skeletonOnlySites().has('zybang.com')).toBe(true);
    expect(BUILT_IN_SITES.has('zybang.com')).toBe(false);
  });
});
