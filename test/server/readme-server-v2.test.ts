import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport, UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { startServer } from '../../examples/readme-server/server-v2.js';
import { createElicitationHandler } from '../../src/adapters/sdk/handler.js';
import { functionOpener } from '../../src/adapters/sdk/opener.js';
import { guardTransport } from '../../src/adapters/sdk/transport.js';
import type { GuardEvent } from '../../src/core/events.js';
import { createGuard } from '../../src/core/guard.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { MemorySecretVault } from '../../src/server/vault.js';
import { TestBrowser } from './helpers/browser.js';
import { expectLoopbackOnlyProgram } from './helpers/example-program.js';
import { startTestProvider, type TestProvider } from './helpers/provider.js';

// The README's SDK v2 server section is examples/readme-server/server-v2.ts, verbatim; this file
// checks the copy, runs the server end to end through the client guard in the 2026-07-28 era (and a
// 2025-11-25 client on the same server), attacks its requestState as a hostile client would (no
// guard: the attacker owns his client), and runs it as a program.

const EXAMPLE = new URL('../../examples/readme-server/server-v2.ts', import.meta.url);
const CLIENT_SECRET = 'readme-v2-client-secret-not-real-0123456789';
const USERS = {
  alice: { bearer: 'readme-v2-bearer-alice', password: 'alice-password', account: 'alice-at-acme' },
  mallory: { bearer: 'readme-v2-bearer-mallory', password: 'mallory-password', account: 'mallory-at-acme' },
} as const;
type User = keyof typeof USERS;
const MODERN = '2026-07-28';

/**
 * A free loopback port, held by a listening probe until `release` is called right before the
 * server takes it: while the file runs, no other test's port-0 listener can be given it.
 */
async function heldPort(): Promise<{ port: number; release(): Promise<void> }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  return { port, release: () => new Promise<void>((resolve) => probe.close(() => resolve())) };
}

let provider: TestProvider;
// One port per server started (each registered with the provider): a client's pooled keep-alive
// connection to a server closed by the previous test never meets the next one.
const ports: { port: number; release(): Promise<void> }[] = [];

beforeAll(async () => {
  for (let i = 0; i < 12; i += 1) ports.push(await heldPort());
  provider = await startTestProvider({
    clientId: 'readme-v2-client',
    clientSecret: CLIENT_SECRET,
    redirectUris: ports.map(({ port }) => `http://127.0.0.1:${port}/oauth/callback`),
    accountId: USERS.alice.account,
    resourceScope: 'files',
  });
});

afterAll(async () => {
  for (const held of ports.splice(0)) await held.release();
  await provider?.close();
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});

async function start(waitMs?: number) {
  const vault = new MemorySecretVault();
  const held = ports.shift();
  if (held === undefined) throw new Error('more servers started than ports registered with the provider');
  await held.release();
  const server = await startServer({
    port: held.port,
    provider: { issuer: provider.issuer, clientId: 'readme-v2-client', clientSecret: CLIENT_SECRET },
    vault,
    verifyBearer: (token) => (Object.keys(USERS) as User[]).find((u) => USERS[u].bearer === token) ?? null,
    verifyLogin: (name, password) => (name in USERS && USERS[name as User].password === password ? name : null),
    sessionSecret: randomBytes(32),
    stateKey: randomBytes(32),
    ...(waitMs === undefined ? {} : { waitMs }),
  });
  closers.push(() => server.close());
  return { server, vault };
}

/** A browser signed in to the example as `user` (its own sign-in form) and at the provider as that user's account. */
async function browserOf(base: string, user: User): Promise<TestBrowser> {
  const browser = new TestBrowser();
  const posted = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ username: user, password: USERS[user].password, returnTo: '/' }),
  });
  expect(posted.status).toBe(303);
  const [pair = ''] = (posted.headers.get('set-cookie') ?? '').split(';');
  browser.setCookie(base, pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  browser.setCookie(provider.issuer, 'test_account', USERS[user].account);
  return browser;
}

/** Walks a connect URL through the provider back to the callback; returns the last page's status. */
async function walk(browser: TestBrowser, url: string): Promise<{ status: number; body: string }> {
  const done = await browser.follow(url);
  return { status: done.response.status, body: await done.response.text() };
}

function transport(base: string, user: User): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${USERS[user].bearer}` } },
  });
}

type Raw = {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params: { mode: string; url: string; message: string } }>;
  requestState?: string;
  content?: { type: string; text: string }[];
  isError?: boolean;
};

/** A hostile (unguarded) 2026-07-28 client that fulfils nothing itself and sends whatever it likes. */
async function rawClient(base: string, user: User) {
  const client = new Client(
    { name: 'raw-host', version: '1.0.0' },
    {
      capabilities: { elicitation: { url: {} } },
      versionNegotiation: { mode: { pin: MODERN } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(transport(base, user));
  closers.push(() => client.close());
  return {
    call: async (retry: { inputResponses?: Record<string, unknown>; requestState?: string } = {}): Promise<Raw> =>
      (await client.callTool({ name: 'list_acme_files', arguments: {}, ...retry } as never, { allowInputRequired: true } as never)) as Raw,
  };
}

const textOf = (result: Raw) => result.content?.map((c) => c.text).join('') ?? '';
const ACCEPT = { connect: { action: 'accept' } };

describe('the README SDK v2 server section', () => {
  it('is a verbatim copy of examples/readme-server/server-v2.ts', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const source = readFileSync(EXAMPLE, 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(source);
  });

  it('runs end to end through the client guard in the 2026-07-28 era: input_required, consent, provider, vault, the retry goes on once', async () => {
    const { server, vault } = await start();
    const browser = await browserOf(server.url, 'alice');
    const events: GuardEvent[] = [];
    const guard = createGuard({
      policy: { profile: 'development' },
      ledger: new MemoryLedger(),
      subject: 'alice',
      onEvent: (e) => events.push(e),
    });
    const reviewed: string[] = [];
    const pages: string[] = [];
    const handler = createElicitationHandler(
      guard,
      {
        reviewUrl: async (review) => {
          reviewed.push(review.url);
          return 'accept';
        },
        reviewForm: async () => ({ action: 'decline' }),
      },
      // The system browser: walks the connect page, the provider and the callback before the answer goes out.
      { opener: functionOpener(async (url) => void pages.push((await walk(browser, url)).body)), openGraceMs: 30_000 },
    );
    const client = new Client(
      { name: 'readme-v2-host', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: MODERN } } },
    );
    client.setRequestHandler('elicitation/create', handler);
    await client.connect(guardTransport(transport(server.url, 'alice'), guard));
    closers.push(() => client.close());

    const result = await client.callTool({ name: 'list_acme_files', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'Acme is connected for alice.' }]);
    expect(guard.session().era).toBe('modern');
    expect(reviewed).toHaveLength(1);
    expect(new URL(reviewed[0]!).pathname).toMatch(/^\/connect\/[A-Za-z0-9_-]{43}$/);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toContain('Connected');
    const stored = await vault.get('alice', 'acme');
    expect(stored?.providerSubject).toBe(USERS.alice.account);
    expect(JSON.stringify(result)).not.toContain(stored!.accessToken);
    const moves = events.filter((e) => e.type === 'flow.transition').map((e) => (e as { to: string }).to);
    expect(moves.at(-1)).toBe('ORIGINAL_RESPONSE_ACCEPTED');
    expect(guard.metrics()).toMatchObject({ originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });

    // Connected now: the next call goes straight on, nothing asked.
    expect((await client.callTool({ name: 'list_acme_files', arguments: {} })).content).toEqual([
      { type: 'text', text: 'Acme is connected for alice.' },
    ]);
    expect(reviewed).toHaveLength(1);
  }, 60_000);

  it('gives a 2025-11-25 client on the same server the 2025 path: -32042, the connect page, the retry goes on', async () => {
    const { server, vault } = await start();
    const browser = await browserOf(server.url, 'alice');
    const guard = createGuard({ policy: { profile: 'development' }, ledger: new MemoryLedger(), subject: 'alice' });
    const client = new Client({ name: 'readme-v2-legacy-host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    await client.connect(guardTransport(transport(server.url, 'alice'), guard));
    closers.push(() => client.close());
    const error = await client.callTool({ name: 'list_acme_files', arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect(guard.session().era).toBe('legacy');
    const [entry] = (error as UrlElicitationRequiredError).elicitations;
    const ticket = await guard.recordConsent(entry!.elicitationId!, 'accept');
    let page = '';
    await guard.openUrl(ticket!, async (url) => void (page = (await walk(browser, url)).body));
    expect(page).toContain('Connected');
    expect((await vault.get('alice', 'acme'))?.providerSubject).toBe(USERS.alice.account);
    // Served statelessly, a 2025 request gets no completion notice: the user says the browser step is done.
    await expect(client.callTool({ name: 'list_acme_files', arguments: {} })).rejects.toThrow(/not completed yet/);
    guard.confirmFlow(entry!.elicitationId!);
    const result = await client.callTool({ name: 'list_acme_files', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'Acme is connected for alice.' }]);
  }, 60_000);
});

describe('the v2 server against a hostile client (2026-07-28)', () => {
  it('answers a retry before the callback "not done yet": a fresh requestState, no input request, the tool not run', async () => {
    const { server, vault } = await start(100);
    const alice = await rawClient(server.url, 'alice');
    const first = await alice.call();
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests?.['connect']).toMatchObject({ method: 'elicitation/create', params: { mode: 'url' } });
    expect(first.inputRequests?.['connect']?.params).not.toHaveProperty('elicitationId');
    // Signed, not encrypted: the subject never appears in the state (only an HMAC tag of it).
    expect(Buffer.from(first.requestState!.split('.')[1]!, 'base64url').toString()).not.toContain('alice');
    const early = await alice.call({ inputResponses: ACCEPT, requestState: first.requestState! });
    expect(early).toMatchObject({ resultType: 'input_required' });
    expect(Object.keys(early.inputRequests ?? {})).toEqual([]);
    expect(early.requestState).toMatch(/^v1\./);
    expect(early.requestState).not.toBe(first.requestState);
    expect(await vault.get('alice', 'acme')).toBeNull();

    // The browser step finishes; the next retry (with the fresh state, no answers: a state-only round) goes on.
    expect((await walk(await browserOf(server.url, 'alice'), first.inputRequests!['connect']!.params.url)).status).toBe(200);
    const done = await alice.call({ requestState: early.requestState! });
    expect(textOf(done)).toBe('Acme is connected for alice.');
  }, 60_000);

  it('waits on the server for the callback when it arrives during the retry', async () => {
    const { server } = await start(20_000);
    const alice = await rawClient(server.url, 'alice');
    const first = await alice.call();
    const retry = alice.call({ inputResponses: ACCEPT, requestState: first.requestState! });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await walk(await browserOf(server.url, 'alice'), first.inputRequests!['connect']!.params.url)).status).toBe(200);
    expect(textOf(await retry)).toBe('Acme is connected for alice.');
  }, 60_000);

  it('refuses a tampered requestState, one from another subject, and one spliced from two flows: E_REQUEST_STATE_INVALID', async () => {
    const { server, vault } = await start(100);
    const alice = await rawClient(server.url, 'alice');
    const mallory = await rawClient(server.url, 'mallory');
    const a1 = (await alice.call()).requestState!;
    const a2 = (await alice.call()).requestState!;
    const [version, body, mac] = a1.split('.') as [string, string, string];

    // Tampered: the flow's URL in the body changed, MAC kept.
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { p: { u: string } };
    payload.p.u = payload.p.u.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const forged = `${version}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    // Spliced: the body of one flow with the MAC of another.
    const spliced = `${version}.${body}.${a2.split('.')[2]}`;
    for (const state of [forged, spliced, `${a1}x`, 'not-a-state', '']) {
      const refused = await alice.call({ inputResponses: ACCEPT, requestState: state });
      expect(refused.isError, state).toBe(true);
      expect(textOf(refused)).toMatch(/^E_REQUEST_STATE_INVALID: /);
    }
    // Alice's genuine state, sent by Mallory (signed in as himself): bound to Alice.
    const stolen = await mallory.call({ inputResponses: ACCEPT, requestState: a1 });
    expect(textOf(stolen)).toMatch(/^E_REQUEST_STATE_INVALID: the requestState was not issued by this server for this user/);
    expect(await vault.get('alice', 'acme')).toBeNull();
    expect(await vault.get('mallory', 'acme')).toBeNull();
    expect(JSON.stringify(stolen)).not.toContain('alice');
  }, 60_000);

  it('refuses a state replayed after success, and the state of a flow that ended even when another flow of the user completed', async () => {
    const { server } = await start(100);
    const alice = await rawClient(server.url, 'alice');
    const browser = await browserOf(server.url, 'alice');

    // A flow whose callback is refused (opened in another browser): retired.
    const stopped = await alice.call();
    const page = await browser.get(stopped.inputRequests!['connect']!.params.url);
    expect(page.status).toBe(302);
    await page.arrayBuffer();
    const other = new TestBrowser();
    other.setCookie(provider.issuer, 'test_account', USERS.alice.account);
    const callback = await other.follow(page.headers.get('location')!, (next) => next.pathname === '/oauth/callback');
    expect((await other.get(callback.stoppedAt!)).status).toBe(403);

    // A second flow completes.
    const second = await alice.call();
    expect((await walk(browser, second.inputRequests!['connect']!.params.url)).status).toBe(200);
    const ok = await alice.call({ inputResponses: ACCEPT, requestState: second.requestState! });
    expect(textOf(ok)).toBe('Acme is connected for alice.');

    // The same state again, and the first flow's state: refused, whatever the vault now holds.
    expect(textOf(await alice.call({ inputResponses: ACCEPT, requestState: second.requestState! }))).toMatch(/^E_REQUEST_STATE_REPLAYED: /);
    expect(textOf(await alice.call({ inputResponses: ACCEPT, requestState: stopped.requestState! }))).toMatch(
      /^E_CONNECT_FLOW_ENDED: this connection was stopped after a refused attempt/,
    );
    // A fresh call goes straight on: the vault holds the token of the flow that completed.
    const third = await alice.call();
    expect(third.resultType).toBeUndefined();
    expect(textOf(third)).toBe('Acme is connected for alice.');
  }, 60_000);

  it('lets exactly one of two retries racing with the same state go on', async () => {
    const { server } = await start(20_000);
    const alice = await rawClient(server.url, 'alice');
    const first = await alice.call();
    const retries = [1, 2].map(() => alice.call({ inputResponses: ACCEPT, requestState: first.requestState! }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await walk(await browserOf(server.url, 'alice'), first.inputRequests!['connect']!.params.url)).status).toBe(200);
    const texts = (await Promise.all(retries)).map(textOf).sort();
    expect(texts[0]).toBe('Acme is connected for alice.');
    expect(texts[1]).toMatch(/^E_REQUEST_STATE_REPLAYED: /);
  }, 60_000);

  it('answers a decline with a tool error, and only once the state is checked', async () => {
    const { server } = await start(100);
    const alice = await rawClient(server.url, 'alice');
    const first = await alice.call();
    const declined = await alice.call({ inputResponses: { connect: { action: 'decline' } }, requestState: first.requestState! });
    expect(declined).toMatchObject({ isError: true });
    expect(textOf(declined)).toBe('Not connected: the request to connect was declined.');
    const forged = await alice.call({ inputResponses: { connect: { action: 'decline' } }, requestState: `${first.requestState}x` });
    expect(textOf(forged)).toMatch(/^E_REQUEST_STATE_INVALID: /);
  }, 60_000);

  it('refuses the forwarded-link replay in the modern era: nothing bound, the owner retry told the flow ended', async () => {
    const { server, vault } = await start(100);
    const mallory = await rawClient(server.url, 'mallory');
    const malloryBrowser = await browserOf(server.url, 'mallory');
    const asked = await mallory.call();
    const connectPage = await malloryBrowser.get(asked.inputRequests!['connect']!.params.url);
    expect(connectPage.status).toBe(302);
    await connectPage.arrayBuffer();
    const authorize = connectPage.headers.get('location')!;

    // Alice, signed in to the server as herself, walks the forwarded provider link: refused at the callback.
    const aliceBrowser = await browserOf(server.url, 'alice');
    const walked = await aliceBrowser.follow(authorize, (next) => next.pathname === '/oauth/callback');
    const callback = walked.stoppedAt!;
    const refused = await aliceBrowser.get(callback);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('do not send it');
    // Mallory replays Alice's callback URL in his own browser: the state is spent.
    const replay = await malloryBrowser.get(callback);
    expect(replay.status).toBe(400);
    await replay.arrayBuffer();
    // And his client's retry learns the flow ended; nothing bound to anyone.
    const retry = await mallory.call({ inputResponses: ACCEPT, requestState: asked.requestState! });
    expect(textOf(retry)).toMatch(/^E_CONNECT_FLOW_ENDED: /);
    expect(await vault.get('mallory', 'acme')).toBeNull();
    expect(await vault.get('alice', 'acme')).toBeNull();
  }, 60_000);
});

describe('the README SDK v2 server as a program', () => {
  it('runs, and refuses plain http on a host that is not loopback', async () => {
    await expectLoopbackOnlyProgram(EXAMPLE, {
      STATE_KEY: randomBytes(32).toString('base64'),
      PROVIDER_ISSUER: provider.issuer,
      PROVIDER_CLIENT_ID: 'readme-v2-client',
      PROVIDER_CLIENT_SECRET: CLIENT_SECRET,
    });
  }, 60_000);
});
