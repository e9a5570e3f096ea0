import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { createGuard } from '../../src/core/guard.js';
import { isCrossSubjectBinding } from '../../src/server/connect.js';
import { ConnectCode } from '../../src/server/connect-audit.js';
import type { TestBrowser } from '../server/helpers/browser.js';
import { open, PROVIDER, useConnectWorld } from './support/connect-world.js';
import { connectHost, rejection } from './support/sdk.js';

// Fault: the browser that completes the connection is signed in to the server as someone other
// than the MCP user who asked (a shared computer, a switched account), on the connect page or only
// by the time of the OAuth callback. The token must bind to the subject the flow was issued for,
// and only when that subject is the one signed in.

const suite = useConnectWorld('subject-mismatch');
const { hosts, invariants } = suite;

async function aliceSession(session: string) {
  const guard = invariants.guard(createGuard({ policy: { profile: 'development' }, subject: 'mcp|alice' }));
  const host = await connectHost(guard, { configure: suite.world.mcpServer('mcp|alice', session) });
  hosts.push(host);
  const required = await rejection(host.client.callTool({ name: 'connect', arguments: {} }));
  expect(required).toBeInstanceOf(UrlElicitationRequiredError);
  const [entry] = (required as UrlElicitationRequiredError).elicitations;
  const ticket = await guard.recordConsent(entry!.elicitationId, 'accept');
  return { guard, host, entry: entry as { elicitationId: string; url: string }, ticket: ticket! };
}

describe('fault: a subject mismatch', () => {
  it('refuses a connect page opened in a browser signed in as Bob; nothing is bound', async () => {
    const { guard, host, entry, ticket } = await aliceSession('session-a1');
    const bobsBrowser = suite.world.browserFor('mcp|bob');
    let page = { status: 0, body: '' };
    await guard.openUrl(ticket, async (url) => void (page = await open(bobsBrowser, url)));
    expect(page.status).toBe(403);
    expect(page.body).toContain('different account');
    expect(suite.world.events.at(-1)).toMatchObject({ code: ConnectCode.subjectMismatch, stage: 'connect' });
    expect(await suite.world.vault.get('mcp|bob', PROVIDER)).toBeNull();
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(host.notices).toEqual([]);
    expect(guard.flow(entry.elicitationId)?.state).toBe('OUT_OF_BAND_PENDING');
    expect(suite.world.service.metrics()).toMatchObject({ crossSubjectBindings: 0 });
    invariants.expectGuard(guard);
  });

  it('refuses the callback when the account switched mid-flow and retires the flow; Alice starts again and binds once', async () => {
    const { guard, host, entry, ticket } = await aliceSession('session-a2');
    const browser = suite.world.browserFor('mcp|alice');
    let callback = '';
    await guard.openUrl(ticket, async (url) => void (callback = await suite.world.toCallback(browser, url)));

    // Someone signs the browser in as Bob before the provider's redirect comes back.
    suite.world.signIn(browser, 'mcp|bob');
    const refused = await open(browser, callback);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('ask your assistant to start again');
    expect(suite.world.events.at(-1)).toMatchObject({ code: ConnectCode.subjectMismatch, stage: 'callback', retired: true });
    expect(await suite.world.vault.get('mcp|bob', PROVIDER)).toBeNull();
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(host.notices).toEqual([]);

    // Alice signs back in: the refused callback ended the flow, so the same callback binds nothing.
    suite.world.signIn(browser as TestBrowser, 'mcp|alice');
    const again = await open(browser, callback);
    expect(again.status).toBe(400);
    expect(suite.world.events.at(-1)).toMatchObject({ code: ConnectCode.stateReplayed, stage: 'callback' });
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(guard.flow(entry.elicitationId)?.state).toBe('OUT_OF_BAND_PENDING');
    await new Promise((r) => setTimeout(r, 10));
    expect(host.notices).toEqual([]);

    // She asks her assistant again (a new conversation): a new flow, finished in her browser, binds to her.
    const fresh = await aliceSession('session-a3');
    let freshCallback = '';
    await fresh.guard.openUrl(fresh.ticket, async (url) => void (freshCallback = await suite.world.toCallback(browser, url)));
    expect((await open(browser, freshCallback)).status).toBe(200);
    expect(await suite.world.vault.get('mcp|alice', PROVIDER)).not.toBeNull();
    expect(await suite.world.vault.get('mcp|bob', PROVIDER)).toBeNull();
    await vi.waitFor(() => expect(fresh.host.notices).toEqual([fresh.entry.elicitationId]));
    expect(host.notices).toEqual([]);
    expect(fresh.guard.flow(fresh.entry.elicitationId)?.state).toBe('ERROR_RETRY_ELIGIBLE');

    const result = await fresh.host.client.callTool({ name: 'connect', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `connected to ${PROVIDER} for mcp|alice` }]);
    expect(fresh.guard.metrics()).toMatchObject({ completionsDelivered: 1, originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    expect(suite.world.service.metrics()).toMatchObject({
      tokensBound: 1,
      crossSubjectBindings: 0,
      bindingsByOtherBrowser: 0,
      flowsRetired: 1,
    });
    invariants.expectGuard(guard);
    invariants.expectGuard(fresh.guard);
    invariants.expectService(suite.world.service);
  });

  it('counts a binding as cross-subject whenever the three subjects are not one', () => {
    expect(isCrossSubjectBinding('mcp|alice', 'mcp|alice', 'mcp|alice')).toBe(false);
    expect(isCrossSubjectBinding('mcp|mallory', 'mcp|alice', 'mcp|alice')).toBe(true);
    expect(isCrossSubjectBinding('mcp|alice', 'mcp|alice', 'mcp|bob')).toBe(true);
    expect(isCrossSubjectBinding('mcp|alice', 'mcp|alice', null)).toBe(true);
  });
});
