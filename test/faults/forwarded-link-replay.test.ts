import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/core/guard.js';
import { ConnectCode, type ConnectEvent } from '../../src/server/connect-audit.js';
import type { UrlElicitationParams } from '../../src/server/connect.js';
import type { TestBrowser } from '../server/helpers/browser.js';
import { open, PROVIDER, useConnectWorld } from './support/connect-world.js';
import { connectHost, rejection } from './support/sdk.js';

// Fault: the forwarded-link attack by replay. Mallory starts a connection for his own MCP account,
// opens the connect page himself (so his browser holds the attempt) and forwards the provider's
// sign-in link to Alice. Alice signs in at the provider as herself; the provider sends her browser
// to the server's callback, which refuses it. Mallory then asks for "the address in your address
// bar" and opens Alice's callback URL in his own browser, signed in as himself, within the code's
// lifetime. If that worked, Alice's provider token would be bound to Mallory. Two people, two
// provider accounts, one cookie jar each.

const suite = useConnectWorld('forwarded-link-replay');
const { hosts, invariants } = suite;
const MALLORY = 'mcp|mallory';
const ALICE = 'mcp|alice';
const ACCOUNTS = { [MALLORY]: 'mallory-at-testhub', [ALICE]: 'alice-at-testhub' } as const;

function refusal(): Extract<ConnectEvent, { type: 'connect.refused' }> {
  const event = suite.world.events.at(-1);
  if (event?.type !== 'connect.refused') throw new Error(`the last event is ${event?.type ?? 'missing'}, not a refusal`);
  return event;
}

/** Mallory's MCP session asks for a connection; his browser opens the connect page and stops at the provider's sign-in link. */
async function malloryStarts(
  session: string,
): Promise<{ link: UrlElicitationParams; authorize: string; browser: TestBrowser; notices: string[] }> {
  for (const [subject, account] of Object.entries(ACCOUNTS)) suite.world.knowAccount(subject, account);
  const guard = invariants.guard(createGuard({ policy: { profile: 'development' }, subject: MALLORY }));
  const host = await connectHost(guard, { configure: suite.world.mcpServer(MALLORY, session) });
  hosts.push(host);
  const required = await rejection(host.client.callTool({ name: 'connect', arguments: {} }));
  expect(required).toBeInstanceOf(UrlElicitationRequiredError);
  const link = (required as UrlElicitationRequiredError).elicitations[0] as UrlElicitationParams;
  const browser = suite.world.browserFor(MALLORY);
  const page = await browser.get(link.url);
  expect(page.status).toBe(302);
  await page.arrayBuffer();
  const authorize = page.headers.get('location')!;
  expect(new URL(authorize).origin).toBe(suite.world.provider.issuer);
  return { link, authorize, browser, notices: host.notices };
}

/** The victim's browser walks the forwarded provider link (signing in at the provider as herself) up to the callback. */
async function victimWalks(browser: TestBrowser, authorize: string): Promise<string> {
  const walk = await browser.follow(authorize, (next) => next.origin === suite.world.appOrigin && next.pathname === '/oauth/callback');
  expect(walk.stoppedAt, 'the provider sent the victim back to the callback').not.toBeNull();
  return walk.stoppedAt!;
}

async function expectNothingBound(): Promise<void> {
  expect(await suite.world.vault.get(MALLORY, PROVIDER)).toBeNull();
  expect(await suite.world.vault.get(ALICE, PROVIDER)).toBeNull();
}

describe('fault: the forwarded link, replayed by its owner', () => {
  it("refuses the victim's callback, then the owner's replay: nothing bound, the code never redeemed, the flow retired and recorded", async () => {
    suite.world.useService();
    const { link, authorize, browser: malloryBrowser, notices } = await malloryStarts('session-m1');
    const grantsBefore = suite.world.provider.grants();

    const aliceBrowser = suite.world.browserFor(ALICE);
    const callback = await victimWalks(aliceBrowser, authorize);
    const refused = await open(aliceBrowser, callback);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('do not send it');
    // Refused for the browser, before anyone's subject is compared; the flow is over.
    expect(refusal()).toMatchObject({
      code: ConnectCode.otherBrowser,
      stage: 'callback',
      retired: true,
      elicitationId: link.elicitationId,
    });

    const replay = await open(malloryBrowser, callback);
    expect(replay.status).toBe(400);
    expect(refusal()).toMatchObject({ code: ConnectCode.stateReplayed, stage: 'callback', elicitationId: link.elicitationId });
    await expectNothingBound();
    expect(suite.world.provider.grants(), 'the code from a refused callback is never redeemed').toBe(grantsBefore);
    expect(notices).toEqual([]);

    // Mallory cannot restart the same flow either: a new attempt needs a new flow, and a new flow's
    // callback must again come back to his own browser, from Alice's provider login.
    expect((await open(malloryBrowser, link.url)).status).toBe(410);
    expect(refusal().code).toBe(ConnectCode.flowRetired);
    expect(suite.world.service.metrics()).toMatchObject({
      tokensBound: 0,
      crossSubjectBindings: 0,
      bindingsByOtherBrowser: 0,
      callbackReplayRefused: 2,
      flowsRetired: 1,
    });
    invariants.expectService(suite.world.service);
  });

  it('refuses it the same way when the victim finishes the provider login in a fresh browser', async () => {
    suite.world.useService();
    const { link, authorize, browser: malloryBrowser } = await malloryStarts('session-m2');
    // A browser with no session at the server at all, signed in at the provider as Alice.
    const fresh = suite.world.browserFor(null, ACCOUNTS[ALICE]);
    const callback = await victimWalks(fresh, authorize);
    expect((await open(fresh, callback)).status).toBe(403);
    expect(refusal()).toMatchObject({ code: ConnectCode.otherBrowser, retired: true, subject: null, elicitationId: link.elicitationId });
    expect((await open(malloryBrowser, callback)).status).toBe(400);
    expect(refusal().code).toBe(ConnectCode.stateReplayed);
    // And any later callback for the flow, from anywhere.
    expect((await open(suite.world.browserFor(ALICE), callback)).status).toBe(400);
    await expectNothingBound();
    expect(suite.world.service.metrics()).toMatchObject({ tokensBound: 0, flowsRetired: 1, callbackReplayRefused: 3 });
    invariants.expectService(suite.world.service);
  });

  it("refuses a callback URL that never reached the server before the owner opened it, when the server knows the user's provider account", async () => {
    // The victim's browser never loads the callback (she copies the address as the redirect
    // starts). The owner's browser has the binding and his session: only the provider account
    // tells. With providerSubjectFor the server knows it, and refuses before storing anything.
    const service = suite.world.useService({ providerSubjectFor: (subject) => ACCOUNTS[subject as keyof typeof ACCOUNTS] ?? null });
    const { link, authorize, browser: malloryBrowser, notices } = await malloryStarts('session-m3');
    const callback = await victimWalks(suite.world.browserFor(ALICE), authorize);
    const replay = await open(malloryBrowser, callback);
    expect(replay.status).toBe(403);
    expect(refusal()).toMatchObject({ code: ConnectCode.accountMismatch, retired: true, elicitationId: link.elicitationId });
    await expectNothingBound();
    expect(notices).toEqual([]);
    expect(service.metrics()).toMatchObject({ tokensBound: 0, crossSubjectBindings: 0, flowsRetired: 1 });

    // Mallory connecting his own provider account still works.
    const own = await malloryStarts('session-m4');
    const done = await own.browser.follow(own.link.url);
    expect(done.response.status).toBe(200);
    await done.response.text();
    expect((await suite.world.vault.get(MALLORY, PROVIDER))?.providerSubject).toBe(ACCOUNTS[MALLORY]);
    expect(await suite.world.vault.get(ALICE, PROVIDER)).toBeNull();
    expect(service.metrics()).toMatchObject({ tokensBound: 1, crossSubjectBindings: 0, bindingsByOtherBrowser: 0 });
    expect(suite.world.crossAccountBindings()).toBe(0);
    await suite.world.vault.delete(MALLORY, PROVIDER);
    invariants.expectService(service);
  });
});
