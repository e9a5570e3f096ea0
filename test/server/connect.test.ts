import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectCode, createConnectAuditLog, type ConnectAuditLog, type ConnectEvent } from '../../src/server/connect-audit.js';
import { MemoryConnectFlowStore, type ConnectAttempt } from '../../src/server/connect-store.js';
import { ConnectService, connectHandler, type ConnectCompletion, type ConnectServiceOptions } from '../../src/server/connect.js';
import { createSessionCookie, type SessionCookie } from '../../src/server/session-cookie.js';
import { EncryptedFileVault } from '../../src/server/vault.js';
import { TestBrowser } from './helpers/browser.js';
import { startTestProvider, type TestProvider } from './helpers/provider.js';

const CLIENT_ID = 'mcp-server-test';
const CLIENT_SECRET = 'test-client-secret-not-real-0123456789';
const AUDIENCE = 'https://api.provider.test';
const PROVIDER = 'testhub';
const ALICE = 'mcp|alice';
const BOB = 'mcp|bob';

/** Rewrites one attempt's verifier on its way into the store, as a corrupted or confused store would. */
class TamperingStore extends MemoryConnectFlowStore {
  tamper: ((attempt: ConnectAttempt) => ConnectAttempt) | null = null;
  readonly verifiers: string[] = [];
  override startAttempt(id: string, attempt: ConnectAttempt): boolean {
    this.verifiers.push(attempt.codeVerifier);
    return super.startAttempt(id, this.tamper === null ? attempt : this.tamper(attempt));
  }
}

let dir: string;
let app: Server;
let appOrigin: string;
let provider: TestProvider;
let cookie: SessionCookie;
let vault: EncryptedFileVault;
let auditLog: ConnectAuditLog;
let handler: (req: IncomingMessage, res: ServerResponse) => void;
const events: ConnectEvent[] = [];
const pageBodies: string[] = [];
const storedTokens: string[] = [];
let completions: ConnectCompletion[] = [];
let now = 1_800_000_000_000;
let store: TamperingStore;
let service: ConnectService;

function options(overrides: Partial<ConnectServiceOptions> = {}): ConnectServiceOptions {
  return {
    baseUrl: appOrigin,
    vault,
    provider: {
      name: PROVIDER,
      issuer: provider.issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: `${appOrigin}/oauth/callback`,
      scope: 'openid repo',
      audience: AUDIENCE,
    },
    clock: () => now,
    audit: {
      write: (event) => {
        events.push(event);
        auditLog.write(event);
      },
    },
    store,
    onComplete: (completion) => {
      completions.push(completion);
    },
    allowInsecureRequests: true,
    ...overrides,
  };
}

function browserFor(subject: string | null): TestBrowser {
  const browser = new TestBrowser();
  if (subject !== null) {
    const [pair = ''] = cookie.issue(subject).split(';');
    const at = pair.indexOf('=');
    browser.setCookie(appOrigin, pair.slice(0, at), pair.slice(at + 1));
  }
  return browser;
}

const isCallback =
  (path = '/oauth/callback') =>
  (next: URL) =>
    next.origin === appOrigin && next.pathname === path;

/** Opens the connect link and walks the provider's login and consent; stops before the callback. */
async function toCallback(browser: TestBrowser, connectUrl: string): Promise<string> {
  const walk = await browser.follow(connectUrl, isCallback());
  expect(walk.stoppedAt, 'the provider sent the browser back to the callback').not.toBeNull();
  return walk.stoppedAt!;
}

async function open(browser: TestBrowser, url: string): Promise<{ status: number; body: string }> {
  const response = await browser.get(url);
  const body = await response.text();
  pageBodies.push(body);
  return { status: response.status, body };
}

function refusals(): string[] {
  return events.filter((e): e is Extract<ConnectEvent, { type: 'connect.refused' }> => e.type === 'connect.refused').map((e) => e.code);
}

async function expectNothingBound(): Promise<void> {
  expect(await vault.get(ALICE, PROVIDER)).toBeNull();
  expect(await vault.get(BOB, PROVIDER)).toBeNull();
  expect(completions).toEqual([]);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'connect-test-'));
  app = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  provider = await startTestProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${appOrigin}/oauth/callback`, `${appOrigin}/oauth/other-callback`],
    accountId: 'provider-user-1',
    resourceScope: 'repo',
  });
  cookie = createSessionCookie({ secret: randomBytes(32), secure: false, clock: () => now });
  auditLog = createConnectAuditLog(join(dir, 'logs', 'connect-audit.jsonl'));
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    app.closeAllConnections();
    app.close(() => resolve());
  });
  await provider?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  // Each test gets its own vault file, store and service; the audit log and page bodies accumulate
  // for the final scan of everything the suite wrote.
  vault = new EncryptedFileVault(join(dir, `vault-${events.length}-${Math.random().toString(36).slice(2)}.json`), randomBytes(32));
  store = new TamperingStore();
  completions = [];
  provider.misdirectAudience = null;
  service = new ConnectService(options());
  handler = connectHandler(service, { authenticate: (req) => cookie.authenticate(req) });
});

describe('ConnectService with a real oidc-provider', () => {
  it('binds the token to the subject that started the flow and completes once', async () => {
    const params = await service.issueUrlElicitation({
      subject: ALICE,
      purpose: 'Connect your TestHub account',
      session: 'session-1',
      ttl: 600_000,
      target: 'testhub',
    });
    await expect(service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect', target: 'otherhub' })).rejects.toThrow(
      /connects to "testhub"/,
    );
    expect(params.mode).toBe('url');
    expect(params.message).toBe('Connect your TestHub account');
    const link = new URL(params.url);
    expect(link.origin).toBe(appOrigin);
    expect(link.pathname).toMatch(/^\/connect\/[A-Za-z0-9_-]{43}$/);
    expect(link.search).toBe('');
    expect(params.url).not.toContain('alice');
    expect(params.url).not.toContain(params.elicitationId);

    const alice = browserFor(ALICE);
    const first = await alice.get(params.url);
    expect(first.status).toBe(302);
    const authorize = new URL(first.headers.get('location')!);
    expect(authorize.origin).toBe(provider.issuer);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${appOrigin}/oauth/callback`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('resource')).toBe(AUDIENCE);
    expect(authorize.searchParams.get('client_secret')).toBeNull();
    const state = authorize.searchParams.get('state')!;
    expect(JSON.stringify(events)).not.toContain(state);

    const callback = await toCallback(alice, authorize.href);
    const done = await open(alice, callback);
    expect(done.status).toBe(200);
    expect(done.body).toContain('Connected');

    const stored = await vault.get(ALICE, PROVIDER);
    expect(stored).not.toBeNull();
    expect(stored!.issuer).toBe(provider.issuer);
    expect(stored!.tokenType.toLowerCase()).toBe('bearer');
    expect(stored!.refreshToken).toBeTruthy();
    storedTokens.push(stored!.accessToken, stored!.refreshToken!);
    expect(await vault.get(BOB, PROVIDER)).toBeNull();
    expect(completions).toEqual([{ elicitationId: params.elicitationId, subject: ALICE, session: 'session-1', provider: PROVIDER }]);
    expect(events.slice(-3).map((e) => e.type)).toEqual(['connect.issued', 'connect.redirected', 'connect.completed']);
    for (const body of [done.body]) expect(body).not.toContain(stored!.accessToken);

    // The replayed callback: refused, nothing new bound, no second completion.
    const replay = await open(alice, callback);
    expect(replay.status).toBe(400);
    expect(refusals().at(-1)).toBe(ConnectCode.stateReplayed);
    expect(completions).toHaveLength(1);
    expect((await vault.get(ALICE, PROVIDER))!.accessToken).toBe(stored!.accessToken);

    // The finished link cannot start another flow.
    expect((await open(alice, params.url)).status).toBe(410);
    expect(refusals().at(-1)).toBe(ConnectCode.alreadyCompleted);
  });

  it('refuses a forwarded link opened by another subject, and the rightful user can still finish', async () => {
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const grantsBefore = provider.grants();
    const bob = browserFor(BOB);
    const opened = await open(bob, params.url);
    expect(opened.status).toBe(403);
    expect(opened.body).not.toContain(provider.issuer);
    const refusal = events.at(-1)!;
    expect(refusal).toMatchObject({
      type: 'connect.refused',
      code: ConnectCode.subjectMismatch,
      stage: 'connect',
      status: 403,
      elicitationId: params.elicitationId,
      retired: false,
    });
    expect(JSON.stringify(refusal)).not.toContain(BOB);
    expect(provider.grants()).toBe(grantsBefore);
    await expectNothingBound();

    // Opening the connect page starts nothing for Bob, so it cannot spoil Alice's flow: she finishes it.
    const alice = browserFor(ALICE);
    expect((await open(alice, await toCallback(alice, params.url))).status).toBe(200);
    expect(await vault.get(ALICE, PROVIDER)).not.toBeNull();
    expect(await vault.get(BOB, PROVIDER)).toBeNull();
    storedTokens.push((await vault.get(ALICE, PROVIDER))!.accessToken);
  });

  it('refuses a callback opened in another browser before the subject check, and that ends the flow', async () => {
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const alice = browserFor(ALICE);
    const callback = await toCallback(alice, params.url);
    const grantsBefore = provider.grants();

    // Bob gets hold of Alice's callback URL and opens it: another browser, refused as such.
    const bob = browserFor(BOB);
    const stolen = await open(bob, callback);
    expect(stolen.status).toBe(403);
    expect(stolen.body).toContain('different browser');
    expect(events.at(-1)).toMatchObject({
      type: 'connect.refused',
      code: ConnectCode.otherBrowser,
      stage: 'callback',
      retired: true,
      elicitationId: params.elicitationId,
    });
    const flowCount = service.metrics().flowsRetired;
    expect(flowCount).toBe(1);
    await expectNothingBound();
    expect(provider.grants()).toBe(grantsBefore);

    // The refusal burned the state: Alice's own callback binds nothing now, and the link is spent.
    const after = await open(alice, callback);
    expect(after.status).toBe(400);
    expect(refusals().at(-1)).toBe(ConnectCode.stateReplayed);
    expect((await open(alice, params.url)).status).toBe(410);
    expect(refusals().at(-1)).toBe(ConnectCode.flowRetired);
    await expectNothingBound();
    expect(provider.grants()).toBe(grantsBefore);
    expect(service.metrics()).toMatchObject({ tokensBound: 0, callbackReplayRefused: 2, flowsRetired: 1, bindingsByOtherBrowser: 0 });

    // She starts again: a new flow binds in her browser.
    const again = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const secondBrowser = browserFor(ALICE);
    const callback2 = await toCallback(alice, again.url);
    expect((await open(secondBrowser, callback2)).status).toBe(403);
    expect(refusals().at(-1)).toBe(ConnectCode.otherBrowser);
    const third = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    expect((await open(alice, await toCallback(alice, third.url))).status).toBe(200);
    expect(await vault.get(ALICE, PROVIDER)).not.toBeNull();
    expect(await vault.get(BOB, PROVIDER)).toBeNull();
    expect(completions.map((c) => c.elicitationId)).toEqual([third.elicitationId]);
    storedTokens.push((await vault.get(ALICE, PROVIDER))!.accessToken);
  });

  it('refuses a browser without a server session on the connect page and on the callback', async () => {
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const anonymous = browserFor(null);
    expect((await open(anonymous, params.url)).status).toBe(401);
    expect(refusals().at(-1)).toBe(ConnectCode.unauthenticated);
    // A fresh browser has neither the session nor the binding: refused for the browser first.
    const alice = browserFor(ALICE);
    const callback = await toCallback(alice, params.url);
    expect((await open(anonymous, callback)).status).toBe(403);
    expect(refusals().at(-1)).toBe(ConnectCode.otherBrowser);
    await expectNothingBound();

    // The same browser whose session ended meanwhile: the binding is there, the subject is not.
    const second = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const callback2 = await toCallback(alice, second.url);
    alice.deleteCookie(appOrigin, 'mcp_session');
    expect((await open(alice, callback2)).status).toBe(401);
    expect(events.at(-1)).toMatchObject({ code: ConnectCode.unauthenticated, stage: 'callback', retired: true });
    await expectNothingBound();
  });

  it('refuses a missing, a forged and a superseded state', async () => {
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const alice = browserFor(ALICE);
    const firstCallback = new URL(await toCallback(alice, params.url));

    const noState = new URL(firstCallback);
    noState.searchParams.delete('state');
    expect((await open(alice, noState.href)).status).toBe(400);
    expect(refusals().at(-1)).toBe(ConnectCode.stateMissing);

    const forged = new URL(firstCallback);
    forged.searchParams.set('state', 'forged-state-value');
    expect((await open(alice, forged.href)).status).toBe(400);
    expect(refusals().at(-1)).toBe(ConnectCode.stateUnknown);

    const twice = new URL(firstCallback);
    twice.searchParams.append('state', 'second');
    expect((await open(alice, twice.href)).status).toBe(400);
    expect(refusals().at(-1)).toBe(ConnectCode.stateMissing);
    await expectNothingBound();

    // Opening the link again starts a new attempt; the first attempt's state is dead, and using it
    // (a refused callback) ends the flow: the newer attempt binds nothing either.
    const secondCallback = await toCallback(alice, params.url);
    expect((await open(alice, firstCallback.href)).status).toBe(400);
    expect(events.at(-1)).toMatchObject({ code: ConnectCode.stateReplayed, retired: true });
    await expectNothingBound();
    expect((await open(alice, secondCallback)).status).toBe(400);
    expect(events.at(-1)).toMatchObject({ code: ConnectCode.stateReplayed, retired: false });
    await expectNothingBound();
    expect(completions).toHaveLength(0);
  });

  it("refuses a code redeemed with a wrong PKCE verifier, or with another flow's verifier", async () => {
    store.tamper = (attempt) => ({ ...attempt, codeVerifier: 'x'.repeat(43) });
    const tampered = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const alice = browserFor(ALICE);
    expect((await open(alice, await toCallback(alice, tampered.url))).status).toBe(502);
    expect(refusals().at(-1)).toBe(ConnectCode.tokenRefused);
    expect(events.at(-1)).toMatchObject({ reason: 'token endpoint error invalid_grant' });
    await expectNothingBound();

    // Two flows of the same user: the second is redeemed with the first one's verifier.
    store.tamper = null;
    const one = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const two = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    await toCallback(alice, one.url);
    const firstVerifier = store.verifiers.at(-1)!;
    store.tamper = (attempt) => ({ ...attempt, codeVerifier: firstVerifier });
    expect((await open(alice, await toCallback(alice, two.url))).status).toBe(502);
    expect(refusals().at(-1)).toBe(ConnectCode.tokenRefused);
    await expectNothingBound();
  });

  it('refuses a code redeemed with a different redirect_uri, and never comes back from an unregistered one', async () => {
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const alice = browserFor(ALICE);
    const callback = new URL(await toCallback(alice, params.url));
    // A second deployment sharing the flow store but registered with the other redirect URI.
    const other = new ConnectService(options({ provider: { ...options().provider, redirectUri: `${appOrigin}/oauth/other-callback` } }));
    const outcome = await other.handleCallback(callback.searchParams, ALICE, alice.cookieHeader(appOrigin));
    expect(outcome).toMatchObject({ kind: 'refused', code: ConnectCode.tokenRefused });
    await expectNothingBound();

    const unregistered = new ConnectService(
      options({ provider: { ...options().provider, redirectUri: `${appOrigin}/oauth/unregistered` } }),
    );
    handler = connectHandler(unregistered, { authenticate: (req) => cookie.authenticate(req) });
    const stray = await unregistered.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const walk = await alice.follow(stray.url, (next) => next.origin === appOrigin && next.pathname.startsWith('/oauth/'));
    expect(walk.stoppedAt).toBeNull();
    expect(walk.response.status).toBe(400);
    await walk.response.arrayBuffer();
    await expectNothingBound();
  });

  it('refuses an access token issued for another audience', async () => {
    provider.misdirectAudience = 'https://someone-else.test';
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const alice = browserFor(ALICE);
    expect((await open(alice, await toCallback(alice, params.url))).status).toBe(502);
    expect(refusals().at(-1)).toBe(ConnectCode.audienceMismatch);
    await expectNothingBound();
  });

  it('refuses an expired flow on the connect page and on the callback', async () => {
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub', ttl: 60_000 });
    const alice = browserFor(ALICE);
    const callback = await toCallback(alice, params.url);
    now += 60_001;
    expect((await open(alice, callback)).status).toBe(410);
    expect(refusals().at(-1)).toBe(ConnectCode.expired);
    expect((await open(alice, params.url)).status).toBe(410);
    expect(refusals().at(-1)).toBe(ConnectCode.expired);
    await expectNothingBound();
  });

  it('answers unknown links with 404 and only GET on its own paths', async () => {
    const alice = browserFor(ALICE);
    expect((await open(alice, `${appOrigin}/connect/not-a-flow`)).status).toBe(404);
    expect(refusals().at(-1)).toBe(ConnectCode.unknownFlow);
    expect((await open(alice, `${appOrigin}/elsewhere`)).status).toBe(404);
    const posted = await fetch(`${appOrigin}/oauth/callback`, { method: 'POST' });
    expect(posted.status).toBe(405);
    await posted.arrayBuffer();
  });

  it('sends a browser without a session to the login page when one is configured', async () => {
    handler = connectHandler(service, {
      authenticate: (req) => cookie.authenticate(req),
      login: (returnTo) => `/login?returnTo=${encodeURIComponent(returnTo)}`,
    });
    const params = await service.issueUrlElicitation({ subject: ALICE, purpose: 'Connect TestHub' });
    const response = await browserFor(null).get(params.url);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`/login?returnTo=${encodeURIComponent(new URL(params.url).pathname)}`);
  });

  it('rejects configurations that would weaken the binding', async () => {
    expect(() => new ConnectService(options({ allowInsecureRequests: false }))).toThrow(/https/);
    // Insecure development mode is for loopback only: every plain-http URL must be a loopback host.
    for (const base of [
      'http://mcp.example.com',
      'http://10.0.0.5:3000',
      'http://192.168.1.2',
      'http://127.0.0.1.nip.io',
      'http://localhost.example.com',
      'http://[::2]',
    ]) {
      expect(
        () => new ConnectService(options({ baseUrl: base, provider: { ...options().provider, redirectUri: `${base}/oauth/callback` } })),
      ).toThrow(/not a loopback host/);
    }
    expect(() => new ConnectService(options({ provider: { ...options().provider, issuer: 'http://login.example.com' } }))).toThrow(
      /provider\.issuer uses plain http on "login\.example\.com", which is not a loopback host/,
    );
    for (const base of ['http://localhost:8080', 'http://127.9.9.9:1', 'http://[::1]:3000']) {
      expect(
        () => new ConnectService(options({ baseUrl: base, provider: { ...options().provider, redirectUri: `${base}/oauth/callback` } })),
      ).not.toThrow();
    }
    expect(() => new ConnectService(options({ provider: { ...options().provider, redirectUri: 'http://127.0.0.2:1/cb' } }))).toThrow(
      /same origin/,
    );
    expect(() => new ConnectService(options({ provider: { ...options().provider, redirectUri: `${appOrigin}/cb?x=1` } }))).toThrow(/query/);
    await expect(service.issueUrlElicitation({ subject: '', purpose: 'Connect' })).rejects.toThrow(/verified user subject/);
  });

  it('wrote no third-party token to the audit log, a page, or the vault file in the clear', async () => {
    expect(storedTokens.length).toBeGreaterThanOrEqual(3);
    await auditLog.close();
    const written = [readFileSync(join(dir, 'logs', 'connect-audit.jsonl'), 'utf8'), JSON.stringify(events), ...pageBodies];
    const { readdirSync } = await import('node:fs');
    const vaultFiles = readdirSync(dir).filter((name) => name.startsWith('vault-'));
    expect(vaultFiles.length).toBeGreaterThan(0);
    for (const name of vaultFiles) written.push(readFileSync(join(dir, name)).toString('latin1'));
    expect(written[0]!.split('\n').filter(Boolean).length).toBe(events.length);
    for (const token of storedTokens) {
      for (const text of written) expect(text.includes(token)).toBe(false);
    }
    for (const text of written) expect(text).not.toContain(CLIENT_SECRET);
  });
});
