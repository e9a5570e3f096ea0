import { describe, expect, it } from 'vitest';
import {
  createBusinessReceipt,
  createConsentReceipt,
  createNavigation,
  lineageKeyString,
  matchesStateNonce,
  parseBusinessReceipt,
  parseConsentReceipt,
  parseNavigationRecord,
  scrubPurpose,
  shownDigest,
  type ShownToUser,
} from '../../src/flow/records.js';
import { sha256Hex } from '../../src/protocol/digest.js';
import { GuardError } from '../../src/protocol/errors.js';
import { businessInput, digestOf, navigationInput, testDeps } from './support.js';

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return GuardError.is(error) ? error.code : `not a GuardError: ${(error as Error).message}`;
  }
  return 'no error';
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

// Obviously fake, format-valid values: each must never appear in a stored record.
const FAKE_TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const SECRET_URL = `https://user:hunter2@login.example.com:8443/cb/${FAKE_TOKEN}?code=QWxhZGRpbjpvcGVuIHNlc2FtZQ&state=s3cr3t#at=xyz`;

describe('createNavigation', () => {
  it('builds a frozen elicitationNavigation.v1 record', () => {
    const deps = testDeps();
    const { record, stateNonce } = createNavigation(navigationInput(), deps);
    expect(record).toMatchObject({
      schema: 'elicitationNavigation.v1',
      elicitationId: 'el-1',
      server: { key: 'payments', name: 'acme-payments', version: '2.4.0' },
      subject: 'user:alice',
      originalRequestDigest: digestOf('tools/call pay'),
      target: { scheme: 'https', host: 'auth.example.com', port: null },
      redirectPolicy: ['example.com'],
      purpose: 'Sign in to Acme to authorise the payment.',
      createdAt: deps.clock(),
      expiresAt: deps.clock() + 600_000,
      sessionGeneration: 1,
    });
    expect(record.id).toMatch(/^nav_[0-9a-f]{32}$/);
    expect(record.target.urlDigest).toBe(sha256Hex(navigationInput().url));
    expect(isDeepFrozen(record)).toBe(true);
    expect(stateNonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('stores the state nonce only as its digest', () => {
    const { record, stateNonce } = createNavigation(navigationInput(), testDeps());
    expect(record.stateNonceDigest).toBe(sha256Hex(stateNonce));
    expect(JSON.stringify(record)).not.toContain(stateNonce);
    expect(matchesStateNonce(record, stateNonce)).toBe(true);
    expect(matchesStateNonce(record, stateNonce.slice(1) + 'A')).toBe(false);
  });

  it('gives each navigation its own id and nonce', () => {
    const deps = testDeps();
    const a = createNavigation(navigationInput(), deps);
    const b = createNavigation(navigationInput(), deps);
    expect(a.record.id).not.toBe(b.record.id);
    expect(a.stateNonce).not.toBe(b.stateNonce);
  });

  it('keeps nothing of the URL but scheme, host, port and a digest', () => {
    const { record } = createNavigation(
      navigationInput({ url: SECRET_URL, purpose: `Open ${SECRET_URL} and paste ${FAKE_TOKEN}` }),
      testDeps(),
    );
    expect(record.target).toEqual({ scheme: 'https', host: 'login.example.com', port: 8443, urlDigest: sha256Hex(SECRET_URL) });
    const stored = JSON.stringify(record);
    for (const secret of ['hunter2', FAKE_TOKEN, 'QWxhZGRpbjpvcGVuIHNlc2FtZQ', 's3cr3t', 'at=xyz', '/cb'])
      expect(stored).not.toContain(secret);
    expect(record.purpose).toBe('Open https://login.example.com:8443/[…] and paste [redacted]');
  });

  it('stores an internationalised host in ASCII', () => {
    const { record } = createNavigation(
      navigationInput({ url: 'https://bücher.example/login', redirectPolicy: ['Bücher.example', 'bücher.example'] }),
      testDeps(),
    );
    expect(record.target.host).toBe('xn--bcher-kva.example');
    expect(record.redirectPolicy).toEqual(['xn--bcher-kva.example']);
  });

  it('accepts "any" as the redirect policy and a missing subject or original', () => {
    const { record } = createNavigation(
      navigationInput({
        redirectPolicy: 'any',
        subject: null,
        originalRequestDigest: null,
        server: { key: null, name: null, version: null },
      }),
      testDeps(),
    );
    expect(record.redirectPolicy).toBe('any');
    expect(record.subject).toBeNull();
    expect(record.originalRequestDigest).toBeNull();
  });

  it.each([
    ['a URL without a host', { url: 'mailto:someone@example.com' }],
    ['text that is not a URL', { url: 'not a url' }],
    ['an original digest that is not sha256 hex', { originalRequestDigest: 'abc' }],
    ['a zero time to live', { ttlMs: 0 }],
    ['a fractional session generation', { sessionGeneration: 1.5 }],
    ['an empty elicitation id', { elicitationId: '' }],
    ['a redirect host that is not a host name', { redirectPolicy: ['exa mple.com'] }],
  ])('refuses %s with E_RECORD_INVALID', (_label, override) => {
    expect(codeOf(() => createNavigation(navigationInput(override as never), testDeps()))).toBe('E_RECORD_INVALID');
  });

  it('refuses unknown input keys, so nothing unvetted is stored', () => {
    expect(codeOf(() => createNavigation({ ...navigationInput(), url_query: 'x' } as never, testDeps()))).toBe('E_RECORD_INVALID');
  });

  it('does not echo the refused value in the error', () => {
    let message = '';
    try {
      createNavigation(navigationInput({ originalRequestDigest: FAKE_TOKEN }), testDeps());
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('originalRequestDigest');
    expect(message).not.toContain(FAKE_TOKEN);
  });

  it('refuses a random source that returns the wrong number of bytes', () => {
    expect(codeOf(() => createNavigation(navigationInput(), { clock: () => 1, random: () => new Uint8Array(3) }))).toBe('E_GUARD_INTERNAL');
  });
});

describe('scrubPurpose', () => {
  it('keeps ordinary prose as it is', () => {
    expect(scrubPurpose('Authorise the Acme app to read your calendar, then come back.')).toBe(
      'Authorise the Acme app to read your calendar, then come back.',
    );
  });

  it('cuts URLs to their origin even inside punctuation', () => {
    expect(scrubPurpose('(see https://evil.test/?redirect=https://x.test/a)')).toBe('(see https://evil.test/[…])');
    expect(scrubPurpose('Go to https://example.com.')).toBe('Go to https://example.com.');
  });

  it('caps the length', () => {
    expect(scrubPurpose('word '.repeat(1000)).length).toBe(2001);
  });
});

describe('consent receipts', () => {
  const shown: ShownToUser = {
    display: { full: SECRET_URL, host: 'login.example.com', punycodeShown: false },
    findings: [{ code: 'URL_USERINFO', severity: 'error', message: 'The link contains a user name and password.' }],
    message: 'Sign in',
  };

  it('digests what the user was shown, whatever the key order', () => {
    const reordered: ShownToUser = {
      message: 'Sign in',
      findings: [{ message: shown.findings[0]!.message, severity: 'error', code: 'URL_USERINFO' }],
      display: { punycodeShown: false, host: 'login.example.com', full: SECRET_URL },
    };
    expect(shownDigest(reordered)).toBe(shownDigest(shown));
    expect(shownDigest({ ...shown, message: 'Sign in!' })).not.toBe(shownDigest(shown));
    expect(shownDigest({ ...shown, findings: [] })).not.toBe(shownDigest(shown));
  });

  it('records the decision, the time and only a digest of what was shown', () => {
    const deps = testDeps();
    const receipt = createConsentReceipt({ navigationId: 'nav_1', shown, decision: 'accept' }, deps);
    expect(receipt).toEqual({
      schema: 'consentReceipt.v1',
      id: expect.stringMatching(/^cr_[0-9a-f]{32}$/),
      navigationId: 'nav_1',
      shownDigest: shownDigest(shown),
      decision: 'accept',
      at: deps.clock(),
    });
    expect(JSON.stringify(receipt)).not.toContain('hunter2');
    expect(isDeepFrozen(receipt)).toBe(true);
  });

  it('refuses an unknown decision and a display with no JSON form', () => {
    expect(codeOf(() => createConsentReceipt({ navigationId: 'nav_1', shown, decision: 'maybe' as never }, testDeps()))).toBe(
      'E_RECORD_INVALID',
    );
    expect(
      codeOf(() =>
        createConsentReceipt({ navigationId: 'nav_1', shown: { ...shown, display: { n: Number.NaN } }, decision: 'accept' }, testDeps()),
      ),
    ).toBe('E_RECORD_INVALID');
  });
});

describe('business receipts', () => {
  it('records the accepted answer for one lineage', () => {
    const deps = testDeps();
    const receipt = createBusinessReceipt(businessInput({ requestId: 'req-9', retryGeneration: 2 }), deps);
    expect(receipt).toMatchObject({
      schema: 'businessReceipt.v1',
      requestId: 'req-9',
      retryGeneration: 2,
      requirementReceiptIds: ['cr_0001'],
      at: deps.clock(),
    });
    expect(receipt.id).toMatch(/^br_[0-9a-f]{32}$/);
    expect(isDeepFrozen(receipt)).toBe(true);
  });

  it('gets ids that sort by creation time and stay unpredictable within a millisecond', () => {
    const deps = testDeps(4);
    const first = createBusinessReceipt(businessInput(), deps);
    const same = createBusinessReceipt(businessInput(), deps);
    deps.advance(1);
    const later = createBusinessReceipt(businessInput(), deps);
    deps.advance(86_400_000);
    const dayLater = createBusinessReceipt(businessInput(), deps);
    expect(first.id.slice(3, 15)).toBe(first.at.toString(16).padStart(12, '0'));
    expect(same.id).not.toBe(first.id);
    expect(same.id.slice(0, 15)).toBe(first.id.slice(0, 15));
    expect(later.id > first.id && later.id > same.id && dayLater.id > later.id).toBe(true);
  });

  it('refuses an unknown lineage kind and a negative retry generation', () => {
    expect(
      codeOf(() =>
        createBusinessReceipt(
          businessInput({ lineage: { session: 's', kind: 'other' as never, originalRequestDigest: digestOf('x') } }),
          testDeps(),
        ),
      ),
    ).toBe('E_RECORD_INVALID');
    expect(codeOf(() => createBusinessReceipt(businessInput({ retryGeneration: -1 }), testDeps()))).toBe('E_RECORD_INVALID');
  });

  it('keys lineages apart by session, kind and original', () => {
    const base = businessInput().lineage;
    const keys = new Set([
      lineageKeyString(base),
      lineageKeyString({ ...base, session: 'session-2' }),
      lineageKeyString({ ...base, kind: 'error-retry' }),
      lineageKeyString({ ...base, originalRequestDigest: digestOf('other') }),
    ]);
    expect(keys.size).toBe(4);
    expect(lineageKeyString({ ...base })).toBe(lineageKeyString(base));
  });
});

describe('parsing stored records', () => {
  it('round-trips every record through JSON', () => {
    const deps = testDeps();
    const nav = createNavigation(navigationInput(), deps).record;
    const consent = createConsentReceipt(
      { navigationId: nav.id, shown: { display: null, findings: [], message: 'm' }, decision: 'decline' },
      deps,
    );
    const business = createBusinessReceipt(businessInput(), deps);
    expect(parseNavigationRecord(JSON.parse(JSON.stringify(nav)))).toEqual(nav);
    expect(parseConsentReceipt(JSON.parse(JSON.stringify(consent)))).toEqual(consent);
    expect(parseBusinessReceipt(JSON.parse(JSON.stringify(business)))).toEqual(business);
  });

  it('returns a record it already vetted as it is, and vets any look-alike copy afresh', () => {
    const receipt = createBusinessReceipt(businessInput(), testDeps());
    expect(parseBusinessReceipt(receipt)).toBe(receipt);
    expect(() => {
      (receipt as { retryGeneration: number }).retryGeneration = -1;
    }).toThrow(TypeError);
    expect(codeOf(() => parseBusinessReceipt({ ...receipt, retryGeneration: -1 }))).toBe('E_RECORD_INVALID');
    expect(codeOf(() => parseBusinessReceipt({ ...receipt, requirementReceiptIds: [''] }))).toBe('E_RECORD_INVALID');
  });

  it('refuses a record of another schema version or with expiry before creation', () => {
    const nav = createNavigation(navigationInput(), testDeps()).record;
    expect(codeOf(() => parseNavigationRecord({ ...nav, schema: 'elicitationNavigation.v2' }))).toBe('E_RECORD_INVALID');
    expect(codeOf(() => parseNavigationRecord({ ...nav, expiresAt: nav.createdAt }))).toBe('E_RECORD_INVALID');
  });
});
