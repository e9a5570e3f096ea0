import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGuard } from '../../src/core/guard.js';
import { isCrossSubjectBinding } from '../../src/server/connect.js';
import { ConnectCode } from '../../src/server/connect-audit.js';
import type { TestBrowser } from '../server/helpers/browser.js';
import { open, PROVIDER, startConnectWorld, type ConnectWorld } from './support/connect-world.js';
import { collectInvariants } from './support/invariants.js';
import { connectHost, rejection, type Host } from './support/sdk.js';

// Fault: the browser that completes the connection is signed in to the server as someone other
// than the MCP user who asked (a shared computer, a switched account), on the connect page or only
// by the time of the OAuth callback. The token must bind to the subject the flow was issued for,
// and only when that subject is the one signed in.

const invariants = collectInvariants('subject-mismatch');
let world: ConnectWorld;
const hosts: Host[] = [];

beforeAll(async () => {
  world = await startConnectWorld();
});
afterAll(async () => {
  for (const service of world.services) invariants.service(service);
  await world.close();
});
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

async function aliceSession(session: string) {
  const guard = invariants.guard(createGuard({ policy: { profile: 'development' }, subject: 'mcp|alice' }));
  const host = await connectHost(guard, { configure: world.mcpServer('mcp|alice', session) });
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
    const bobsBrowser = world.browserFor('mcp|bob');
    let page = { status: 0, body: '' };
    await guard.openUrl(ticket, async (url) => void (page = await open(bobsBrowser, url)));
    expect(page.status).toBe(403);
    expect(page.body).toContain('different account');
    expect(world.events.at(-1)).toMatchObject({ code: ConnectCode.subjectMismatch, stage: 'connect' });
    expect(await world.vault.get('mcp|bob', PROVIDER)).toBeNull();
    expect(await world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(host.notices).toEqual([]);
    expect(guard.flow(entry.elicitationId)?.state).toBe('OUT_OF_BAND_PENDING');
    expect(world.service.metrics()).toMatchObject({ crossSubjectBindings: 0 });
    invariants.expectGuard(guard);
  });

  it('refuses the callback when the account switched mid-flow, then binds to Alice when she finishes; one notice, one accepted retry', async () => {
    const { guard, host, entry, ticket } = await aliceSession('session-a2');
    const browser = world.browserFor('mcp|alice');
    let callback = '';
    await guard.openUrl(ticket, async (url) => void (callback = await world.toCallback(browser, url)));

    // Someone signs the browser in as Bob before the provider's redirect comes back.
    world.signIn(browser, 'mcp|bob');
    const refused = await open(browser, callback);
    expect(refused.status).toBe(403);
    expect(world.events.at(-1)).toMatchObject({ code: ConnectCode.subjectMismatch, stage: 'callback' });
    expect(await world.vault.get('mcp|bob', PROVIDER)).toBeNull();
    expect(await world.vault.get('mcp|alice', PROVIDER)).toBeNull();
    expect(host.notices).toEqual([]);

    // Alice signs back in: the state is still live, and the token binds to her.
    world.signIn(browser as TestBrowser, 'mcp|alice');
    const done = await open(browser, callback);
    expect(done.status).toBe(200);
    expect(await world.vault.get('mcp|alice', PROVIDER)).not.toBeNull();
    expect(await world.vault.get('mcp|bob', PROVIDER)).toBeNull();
    await vi.waitFor(() => expect(host.notices).toEqual([entry.elicitationId]));
    expect(guard.flow(entry.elicitationId)?.state).toBe('ERROR_RETRY_ELIGIBLE');

    const result = await host.client.callTool({ name: 'connect', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `connected to ${PROVIDER} for mcp|alice` }]);
    expect(guard.metrics()).toMatchObject({ completionsDelivered: 1, originalOperationsAccepted: 1, maxAcceptancesPerLineage: 1 });
    expect(world.service.metrics()).toEqual({ tokensBound: 1, crossSubjectBindings: 0 });
    invariants.expectGuard(guard);
    invariants.expectService(world.service);
  });

  it('counts a binding as cross-subject whenever the three subjects are not one', () => {
    expect(isCrossSubjectBinding('mcp|alice', 'mcp|alice', 'mcp|alice')).toBe(false);
    expect(isCrossSubjectBinding('mcp|mallory', 'mcp|alice', 'mcp|alice')).toBe(true);
    expect(isCrossSubjectBinding('mcp|alice', 'mcp|alice', 'mcp|bob')).toBe(true);
    expect(isCrossSubjectBinding('mcp|alice', 'mcp|alice', null)).toBe(true);
  });
});
