import { Client, InMemoryTransport, type Transport } from '@modelcontextprotocol/client';
import { McpServer, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it } from 'vitest';
import { ConnectCode, type ConnectEvent } from '../../src/server/connect-audit.js';
import { ConnectRounds } from '../../src/server/connect-rounds.js';
import type { TestBrowser } from '../server/helpers/browser.js';
import { open, PROVIDER, useConnectWorld } from './support/connect-world.js';

// Fault: the forwarded-link attack by replay, in the 2026-07-28 era. The same attack as
// forwarded-link-replay.test.ts, against an SDK v2 McpServer whose tool asks through ConnectRounds
// (an input_required result with a URL request and a sealed requestState). Mallory starts a
// connection for his own MCP account, opens the connect page himself and forwards the provider's
// sign-in link to Alice; she is refused at the callback; Mallory replays her callback URL in his own
// browser; then his client retries the call with the requestState. Nothing may be bound, and the
// retry must not let the tool go on. Mallory's client is his own: no guard, manual rounds.

const suite = useConnectWorld('forwarded-link-replay-modern');
const MALLORY = 'mcp|mallory';
const ALICE = 'mcp|alice';
const ACCOUNTS = { [MALLORY]: 'mallory-at-testhub', [ALICE]: 'alice-at-testhub' } as const;

type Raw = {
  resultType?: string;
  inputRequests?: Record<string, { params: { url: string } }>;
  requestState?: string;
  content?: { text: string }[];
};

/** Mallory's v2 client on an in-memory v2 server whose verified subject is his; his rounds of `connect`. */
async function malloryClient(rounds: ConnectRounds): Promise<(retry?: Record<string, unknown>) => Promise<Raw>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    () => {
      const server = new McpServer(
        { name: 'testhub-files', version: '2.0.0' },
        { supportedProtocolVersions: ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS] },
      );
      server.registerTool('connect', { description: 'Connects TestHub.' }, async (ctx) => {
        const step = await rounds.connect(ctx, { purpose: 'Connect your TestHub account' });
        return step.kind === 'connected'
          ? { content: [{ type: 'text', text: `connected to ${PROVIDER} for ${step.subject}` }] }
          : step.result;
      });
      return server;
    },
    { transport: serverSide as unknown as Transport },
  );
  const client = new Client(
    { name: 'mallory-host', version: '1.0.0' },
    {
      capabilities: { elicitation: { url: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(clientSide);
  suite.hosts.push({
    close: async () => {
      await client.close();
      await handle.close();
    },
  } as never);
  return async (retry = {}) =>
    (await client.callTool({ name: 'connect', arguments: {}, ...retry } as never, { allowInputRequired: true } as never)) as Raw;
}

function refusal(): Extract<ConnectEvent, { type: 'connect.refused' }> {
  const event = suite.world.events.at(-1);
  if (event?.type !== 'connect.refused') throw new Error(`the last event is ${event?.type ?? 'missing'}, not a refusal`);
  return event;
}

/** Mallory's call asks for a connection; his browser opens the connect page and stops at the provider's sign-in link. */
async function malloryStarts(rounds: ConnectRounds) {
  for (const [subject, account] of Object.entries(ACCOUNTS)) suite.world.knowAccount(subject, account);
  const call = await malloryClient(rounds);
  const asked = await call();
  expect(asked.resultType).toBe('input_required');
  const url = asked.inputRequests!['connect']!.params.url;
  const browser = suite.world.browserFor(MALLORY);
  const page = await browser.get(url);
  expect(page.status).toBe(302);
  await page.arrayBuffer();
  return { call, asked, url, authorize: page.headers.get('location')!, browser };
}

async function victimWalks(browser: TestBrowser, authorize: string): Promise<string> {
  const walk = await browser.follow(authorize, (next) => next.origin === suite.world.appOrigin && next.pathname === '/oauth/callback');
  expect(walk.stoppedAt, 'the provider sent the victim back to the callback').not.toBeNull();
  return walk.stoppedAt!;
}

const roundsFor = (subject: string) =>
  new ConnectRounds(suite.world.service, {
    key: 'fault-suite-state-key-not-real-0123456789',
    subject: () => subject,
    waitMs: 50,
    allowHttpLoopback: true,
  });
const ACCEPT = { inputResponses: { connect: { action: 'accept' } } };
const textOf = (r: Raw) => r.content?.map((c) => c.text).join('') ?? '';

describe('fault: the forwarded link, replayed by its owner, in the 2026-07-28 era', () => {
  it("refuses the victim's callback, the owner's replay and then his retry: nothing bound, the tool never goes on", async () => {
    suite.world.useService();
    const rounds = roundsFor(MALLORY);
    const { call, asked, authorize, browser: malloryBrowser } = await malloryStarts(rounds);
    const grantsBefore = suite.world.provider.grants();

    const callback = await victimWalks(suite.world.browserFor(ALICE), authorize);
    expect((await open(suite.world.browserFor(ALICE), callback)).status).toBe(403);
    expect(refusal()).toMatchObject({ code: ConnectCode.otherBrowser, stage: 'callback', retired: true });
    expect((await open(malloryBrowser, callback)).status).toBe(400);
    expect(refusal().code).toBe(ConnectCode.stateReplayed);

    // The retry with the state his server sealed: the flow ended, the tool did not run.
    const retry = await call({ ...ACCEPT, requestState: asked.requestState });
    expect(textOf(retry)).toMatch(/^E_CONNECT_FLOW_ENDED: this connection was stopped after a refused attempt/);
    expect(await suite.world.vault.get(MALLORY, PROVIDER)).toBeNull();
    expect(await suite.world.vault.get(ALICE, PROVIDER)).toBeNull();
    expect(suite.world.provider.grants(), 'the code from a refused callback is never redeemed').toBe(grantsBefore);
    expect(rounds.metrics()).toMatchObject({ issued: 1, connected: 0, refused: 1 });
    expect(suite.world.service.metrics()).toMatchObject({
      tokensBound: 0,
      crossSubjectBindings: 0,
      bindingsByOtherBrowser: 0,
      flowsRetired: 1,
    });
    suite.invariants.expectService(suite.world.service);
  });

  it("refuses a callback URL that never reached the server before the owner opened it, when the server knows the user's provider account", async () => {
    const service = suite.world.useService({ providerSubjectFor: (subject) => ACCOUNTS[subject as keyof typeof ACCOUNTS] ?? null });
    const rounds = roundsFor(MALLORY);
    const { call, asked, authorize, browser: malloryBrowser } = await malloryStarts(rounds);
    const callback = await victimWalks(suite.world.browserFor(ALICE), authorize);
    expect((await open(malloryBrowser, callback)).status).toBe(403);
    expect(refusal()).toMatchObject({ code: ConnectCode.accountMismatch, retired: true });
    expect(textOf(await call({ ...ACCEPT, requestState: asked.requestState }))).toMatch(/^E_CONNECT_FLOW_ENDED: /);
    expect(await suite.world.vault.get(ALICE, PROVIDER)).toBeNull();
    expect(await suite.world.vault.get(MALLORY, PROVIDER)).toBeNull();

    // Mallory connecting his own provider account still works, and his retry then goes on once.
    const own = await malloryStarts(rounds);
    const done = await own.browser.follow(own.url);
    expect(done.response.status).toBe(200);
    await done.response.text();
    expect(textOf(await own.call({ ...ACCEPT, requestState: own.asked.requestState }))).toBe(`connected to ${PROVIDER} for ${MALLORY}`);
    expect(textOf(await own.call({ ...ACCEPT, requestState: own.asked.requestState }))).toMatch(/^E_REQUEST_STATE_REPLAYED: /);
    expect((await suite.world.vault.get(MALLORY, PROVIDER))?.providerSubject).toBe(ACCOUNTS[MALLORY]);
    expect(await suite.world.vault.get(ALICE, PROVIDER)).toBeNull();
    expect(service.metrics()).toMatchObject({ tokensBound: 1, crossSubjectBindings: 0, bindingsByOtherBrowser: 0 });
    expect(suite.world.crossAccountBindings()).toBe(0);
    await suite.world.vault.delete(MALLORY, PROVIDER);
    suite.invariants.expectService(service);
  });
});
