import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { createGuard } from '../../src/core/guard.js';
import { ConnectCode } from '../../src/server/connect-audit.js';
import { MemoryConnectFlowStore, type ConnectAttempt } from '../../src/server/connect-store.js';
import { open, PROVIDER, useConnectWorld } from './support/connect-world.js';
import { connectHost, rejection } from './support/sdk.js';

// Fault: the OAuth callback comes back wrong: no state, a forged state, two states, a replayed
// callback, or a code redeemed with the wrong PKCE verifier. Nothing may be bound, no completion
// notice may reach the MCP client, and the rightful callback still works once.

const suite = useConnectWorld('oauth-state-pkce');
const { hosts, invariants } = suite;

/** Rewrites the PKCE verifier on its way into the store, as a confused deployment would. */
class WrongVerifierStore extends MemoryConnectFlowStore {
  override startAttempt(id: string, attempt: ConnectAttempt): boolean {
    return super.startAttempt(id, { ...attempt, codeVerifier: 'v'.repeat(43) });
  }
}

function lastRefusal(): string | undefined {
  const refusal = suite.world.events.findLast((e) => e.type === 'connect.refused');
  return refusal?.type === 'connect.refused' ? refusal.code : undefined;
}

async function aliceToCallback(subject: string, session: string) {
  const guard = invariants.guard(createGuard({ policy: { profile: 'development' }, subject }));
  const host = await connectHost(guard, { configure: suite.world.mcpServer(subject, session) });
  hosts.push(host);
  const required = await rejection(host.client.callTool({ name: 'connect', arguments: {} }));
  expect(required).toBeInstanceOf(UrlElicitationRequiredError);
  const [entry] = (required as UrlElicitationRequiredError).elicitations;
  const ticket = await guard.recordConsent(entry!.elicitationId, 'accept');
  const browser = suite.world.browserFor(subject);
  let callback = '';
  await guard.openUrl(ticket!, async (url) => void (callback = await suite.world.toCallback(browser, url)));
  return { guard, host, browser, elicitationId: entry!.elicitationId, callback: new URL(callback) };
}

describe('fault: OAuth state and PKCE errors', () => {
  it('refuses missing, forged, doubled and replayed states; the rightful callback binds once and notifies once', async () => {
    suite.world.useService();
    const { guard, host, browser, elicitationId, callback } = await aliceToCallback('mcp|alice', 'session-s1');

    const noState = new URL(callback);
    noState.searchParams.delete('state');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value');
    const doubled = new URL(callback);
    doubled.searchParams.append('state', 'second');
    const expected = [ConnectCode.stateMissing, ConnectCode.stateUnknown, ConnectCode.stateMissing];
    for (const [i, bad] of [noState, forged, doubled].entries()) {
      expect((await open(browser, bad.href)).status).toBe(400);
      expect(lastRefusal()).toBe(expected[i]);
    }
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(host.notices).toEqual([]);
    expect(guard.flow(elicitationId)?.state).toBe('OUT_OF_BAND_PENDING');

    expect((await open(browser, callback.href)).status).toBe(200);
    await vi.waitFor(() => expect(host.notices).toEqual([elicitationId]));
    const stored = await suite.world.vault.get('mcp|alice', PROVIDER);
    expect(stored).not.toBeNull();

    // The replay: refused, nothing new bound, no second notice.
    expect((await open(browser, callback.href)).status).toBe(400);
    expect(lastRefusal()).toBe(ConnectCode.stateReplayed);
    expect((await suite.world.vault.get('mcp|alice', PROVIDER))!.accessToken).toBe(stored!.accessToken);
    await new Promise((r) => setTimeout(r, 10));
    expect(host.notices).toEqual([elicitationId]);

    const result = await host.client.callTool({ name: 'connect', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `connected to ${PROVIDER} for mcp|alice` }]);
    expect(guard.metrics()).toMatchObject({ completionsDelivered: 1, originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    expect(suite.world.service.metrics()).toMatchObject({
      tokensBound: 1,
      crossSubjectBindings: 0,
      bindingsByOtherBrowser: 0,
      flowsRetired: 0,
    });
    invariants.expectGuard(guard);
    invariants.expectService(suite.world.service);
  });

  it('refuses a code redeemed with the wrong PKCE verifier: the provider says invalid_grant, nothing is bound', async () => {
    const service = suite.world.useService({ store: new WrongVerifierStore() });
    const { guard, host, browser, elicitationId, callback } = await aliceToCallback('mcp|carol', 'session-s2');
    const grantsBefore = suite.world.provider.grants();
    const page = await open(browser, callback.href);
    expect(page.status).toBe(502);
    expect(lastRefusal()).toBe(ConnectCode.tokenRefused);
    expect(suite.world.events.at(-1)).toMatchObject({ reason: 'token endpoint error invalid_grant' });
    expect(suite.world.provider.grants()).toBe(grantsBefore);
    expect(await suite.world.vault.get('mcp|carol', PROVIDER)).toBeNull();
    await new Promise((r) => setTimeout(r, 10));
    expect(host.notices).toEqual([]);
    expect(guard.flow(elicitationId)?.state).toBe('OUT_OF_BAND_PENDING');
    expect(service.metrics()).toMatchObject({ tokensBound: 0, crossSubjectBindings: 0, flowsRetired: 1 });
    // The refused callback retired the flow: the same callback again binds nothing either.
    expect((await open(browser, callback.href)).status).toBe(400);
    expect(lastRefusal()).toBe(ConnectCode.stateReplayed);
    expect(await suite.world.vault.get('mcp|carol', PROVIDER)).toBeNull();
    invariants.expectGuard(guard);
    invariants.expectService(service);
  });
});
